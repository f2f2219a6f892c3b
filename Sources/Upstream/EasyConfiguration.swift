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

        let list = headerList(for: request.headers)
        transfer.headerList = list
        _ = larder_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list)
    }

    /// The request's fields as libcurl's `CURLOPT_HTTPHEADER` list, in one allocation: the nodes first, then their
    /// NUL-terminated lines. libcurl only reads the list, so it need not come from `curl_slist_append`, which
    /// allocates a node and a copy of the line for each field. Freed with `freeHeaderList` once the transfer is over.
    static func headerList(for headers: HTTPHeaders) -> UnsafeMutablePointer<curl_slist>? {
        func isSent(_ field: HTTPField) -> Bool {
            !fieldsLibcurlOwns.contains(where: field.name.equalsIgnoringASCIICase)
        }
        // Which of libcurl's own fields to remove, as bits of `curlDefaultFieldRemovals` (no array per request).
        var removals = 0
        var count = 0
        var bytes = 0
        for (bit, removal) in curlDefaultFieldRemovals.enumerated() where !headers.contains(removal.name) {
            removals |= 1 << bit
            count += 1
            bytes += removal.line.utf8.count + 1
        }
        for field in headers where isSent(field) {
            count += 1
            // "Name: value" or, for an empty value, "Name;" (libcurl's way to send a field with no value).
            bytes += field.name.utf8.count + (field.value.isEmpty ? 1 : 2 + field.value.utf8.count) + 1
        }
        guard count > 0 else { return nil }
        let nodesSize = count * MemoryLayout<curl_slist>.stride
        let block = UnsafeMutableRawPointer.allocate(
            byteCount: nodesSize + bytes, alignment: MemoryLayout<curl_slist>.alignment)
        let nodes = block.bindMemory(to: curl_slist.self, capacity: count)
        var text = (block + nodesSize).bindMemory(to: UInt8.self, capacity: bytes)
        var index = 0
        func append(_ write: (inout UnsafeMutablePointer<UInt8>) -> Void) {
            let line = text
            write(&text)
            text.pointee = 0
            text += 1
            let next = index + 1 < count ? nodes + index + 1 : nil
            let data = UnsafeMutableRawPointer(line).assumingMemoryBound(to: CChar.self)
            (nodes + index).initialize(to: curl_slist(data: data, next: next))
            index += 1
        }
        func copy(_ string: String, to cursor: inout UnsafeMutablePointer<UInt8>) {
            string.withUTF8Bytes { source in
                guard let base = source.baseAddress else { return }
                cursor.initialize(from: base, count: source.count)
                cursor += source.count
            }
        }
        for field in headers where isSent(field) {
            append { cursor in
                copy(field.name, to: &cursor)
                if field.value.isEmpty {
                    cursor.pointee = UInt8(ascii: ";")
                    cursor += 1
                } else {
                    cursor.pointee = UInt8(ascii: ":")
                    (cursor + 1).pointee = UInt8(ascii: " ")
                    cursor += 2
                    copy(field.value, to: &cursor)
                }
            }
        }
        for (bit, removal) in curlDefaultFieldRemovals.enumerated() where removals & (1 << bit) != 0 {
            append { cursor in copy(removal.line, to: &cursor) }
        }
        return nodes
    }

    /// Frees a list from `headerList(for:)`.
    static func freeHeaderList(_ list: UnsafeMutablePointer<curl_slist>?) {
        list.map { UnsafeMutableRawPointer($0).deallocate() }
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
