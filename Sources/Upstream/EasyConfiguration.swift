import CCurl
import Glibc
import HTTPWire

/// Turns an `UpstreamRequest` into libcurl options, so that what reaches the origin is what the
/// client sent: no added, removed or rewritten fields beyond the proxy's own duties.
enum EasyConfiguration {
    /// libcurl adds these unless told not to; an empty `Name:` entry removes one.
    private static let curlDefaultFieldRemovals = [(name: "Accept", line: "Accept:"), (name: "Expect", line: "Expect:")]
    /// Framing is libcurl's job (from `INFILESIZE`), and `Host` comes from the URL (RFC 9112 §3.2.2).
    private static let fieldsLibcurlOwns = ["Host", "Content-Length", "Transfer-Encoding"]

    /// Sets `request`'s options on `easy`. A new handle (`isNew`) first gets the options every transfer shares; a
    /// reused one still has them, and every per-request option is set here whether the request uses it or not.
    /// `context` is the retained transfer; `client` the unretained `UpstreamClient`, which outlives its connections.
    static func apply(
        _ request: UpstreamRequest, to easy: UnsafeMutableRawPointer, isNew: Bool, transfer: UpstreamTransfer,
        context: UnsafeMutableRawPointer, caFile: String?, client: UnsafeMutableRawPointer
    ) {
        if isNew { applyShared(to: easy, caFile: caFile, client: client) }
        _ = larder_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context)
        // `withCString` hands over a native string's own NUL-terminated storage; passing the String itself went through
        // `utf8CString`, an array allocated for each of these options per request.
        _ = request.url.withCString { larder_easy_setopt_string(easy, CURLOPT_URL, $0) }
        _ = larder_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer)
        _ = larder_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, request.timeouts.connectMilliseconds)
        // "Less than one byte a second for readSeconds" is libcurl's idle-read timeout; 0 and 0 switch it off.
        let idleRead = request.timeouts.readSeconds > 0
        _ = larder_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, idleRead ? 1 : 0)
        _ = larder_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, idleRead ? request.timeouts.readSeconds : 0)
        _ = larder_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        _ = larder_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = larder_easy_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, context)

        // Back to a plain GET with no body (HTTPGET also clears NOBODY and UPLOAD), then what this request needs.
        _ = larder_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
        _ = larder_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, nil)
        _ = larder_easy_setopt_off(easy, CURLOPT_INFILESIZE_LARGE, -1)
        _ = larder_easy_setopt_data_callback(easy, CURLOPT_READFUNCTION, nil)
        _ = larder_easy_setopt_pointer(easy, CURLOPT_READDATA, nil)
        switch (request.method, request.body) {
        case ("GET", .none):
            break
        case ("HEAD", .none):
            _ = larder_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
        case (_, .none):
            _ = request.method.withCString { larder_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, $0) }
        case (_, .length(let length)):
            configureUpload(easy, method: request.method, length: length, context: context)
        case (_, .bytes(let bytes)):
            configureUpload(easy, method: request.method, length: bytes.count, context: context)
        case (_, .streamed):
            configureUpload(easy, method: request.method, length: -1, context: context)
        }

        var list: UnsafeMutablePointer<curl_slist>?
        // Each line is assembled in one reused buffer, since libcurl copies it anyway.
        var line: [UInt8] = []
        line.reserveCapacity(256)
        for field in request.headers where !fieldsLibcurlOwns.contains(where: field.name.equalsIgnoringASCIICase) {
            line.removeAll(keepingCapacity: true)
            field.name.withUTF8Bytes { line.append(contentsOf: $0) }
            if field.value.isEmpty {
                line.append(UInt8(ascii: ";"))  // "Name;" is libcurl's way to send a field with an empty value.
            } else {
                line.append(UInt8(ascii: ":"))
                line.append(UInt8(ascii: " "))
                field.value.withUTF8Bytes { line.append(contentsOf: $0) }
            }
            line.append(0)
            list = line.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { curl_slist_append(list, $0.baseAddress) }
            }
        }
        for removal in curlDefaultFieldRemovals where !request.headers.contains(removal.name) {
            list = removal.line.withCString { curl_slist_append(list, $0) }
        }
        transfer.headerList = list
        _ = larder_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list)
    }

    /// The options every transfer shares, set once per handle.
    private static func applyShared(to easy: UnsafeMutableRawPointer, caFile: String?, client: UnsafeMutableRawPointer) {
        // Never through a proxy, whatever `http_proxy` the daemon inherited: that would loop through Larder.
        _ = larder_easy_setopt_string(easy, CURLOPT_PROXY, "")
        _ = larder_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        _ = larder_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        _ = larder_easy_setopt_long(easy, CURLOPT_HTTP_CONTENT_DECODING, 0)
        _ = larder_easy_setopt_long(easy, CURLOPT_PATH_AS_IS, 1)
        _ = larder_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = larder_easy_setopt_long(easy, CURLOPT_TCP_NODELAY, 1)
        _ = larder_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, 64 * 1024)
        _ = larder_easy_setopt_long(easy, CURLOPT_UPLOAD_BUFFERSIZE, 64 * 1024)
        if let caFile { _ = larder_easy_setopt_string(easy, CURLOPT_CAINFO, caFile) }
        _ = larder_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, headerCallback)
        _ = larder_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, writeCallback)
        _ = larder_easy_setopt_opensocket(easy, openSocketCallback)
        _ = larder_easy_setopt_closesocket(easy, closeSocketCallback)
        _ = larder_easy_setopt_pointer(easy, CURLOPT_CLOSESOCKETDATA, client)
    }

    private static func configureUpload(_ easy: UnsafeMutableRawPointer, method: String, length: Int, context: UnsafeMutableRawPointer) {
        _ = larder_easy_setopt_long(easy, CURLOPT_UPLOAD, 1)
        _ = method.withCString { larder_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, $0) }
        _ = larder_easy_setopt_off(easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(length))
        _ = larder_easy_setopt_data_callback(easy, CURLOPT_READFUNCTION, readCallback)
        _ = larder_easy_setopt_pointer(easy, CURLOPT_READDATA, context)
    }
}

private func transfer(_ userdata: UnsafeMutableRawPointer?) -> UpstreamTransfer {
    // Every callback is registered with the transfer's retained context pointer.
    Unmanaged<UpstreamTransfer>.fromOpaque(userdata!).takeUnretainedValue()
}

private let headerCallback: larder_data_callback = { buffer, size, count, userdata in
    let length = size * count
    let line = UnsafeRawBufferPointer(start: buffer, count: length)
    return transfer(userdata).receiveHeaderLine(line) ? length : 0
}

private let writeCallback: larder_data_callback = { buffer, size, count, userdata in
    transfer(userdata).receiveBody(UnsafeRawBufferPointer(start: buffer, count: size * count))
}

private let readCallback: larder_data_callback = { buffer, size, count, userdata in
    transfer(userdata).provideBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
}

private let openSocketCallback: larder_opensocket_callback = { userdata, purpose, address in
    guard let address else { return larder_socket_bad }
    let owner = transfer(userdata)
    if let destination = DestinationAddress(UnsafePointer(address)), let client = owner.client {
        switch client.checkDestination(destination) {
        case .allow: break
        case .prohibited:
            owner.refusal = UpstreamError(.destinationIPProhibited, details: "destination address is in a prohibited range")
            return larder_socket_bad
        case .loop:
            owner.refusal = UpstreamError(.loopDetected, details: "the destination is this proxy itself")
            return larder_socket_bad
        }
    }
    let descriptor = socket(address.pointee.family, address.pointee.socktype, address.pointee.`protocol`)
    if descriptor >= 0 { owner.client?.connectionOpened(descriptor) }
    return descriptor
}

extension DestinationAddress {
    /// Reads libcurl's address in place: an IPv6 `sockaddr_in6` is larger than the `struct sockaddr`
    /// member it is declared as, so it must not be copied out first.
    init?(_ address: UnsafePointer<curl_sockaddr>) {
        let raw = UnsafeRawPointer(address) + MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr)!
        switch address.pointee.family {
        case AF_INET:
            let inet = raw.loadUnaligned(as: sockaddr_in.self)
            self.init(bytes: withUnsafeBytes(of: inet.sin_addr) { Array($0) }, port: Int(UInt16(bigEndian: inet.sin_port)))
        case AF_INET6:
            let inet6 = raw.loadUnaligned(as: sockaddr_in6.self)
            self.init(bytes: withUnsafeBytes(of: inet6.sin6_addr) { Array($0) }, port: Int(UInt16(bigEndian: inet6.sin6_port)))
        default:
            return nil
        }
    }
}
