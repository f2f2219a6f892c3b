/// An absolute `http` or `https` URL (RFC 9110 §4.2), split and normalised the way a proxy and its cache need it.
public struct AbsoluteURL: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// "http" or "https", lowercased.
    public let scheme: String
    /// Lowercased; an IPv6 address without brackets.
    public let host: String
    /// The explicit port, or the scheme's default (80 or 443).
    public let port: Int
    /// At least "/"; percent-encoding kept as sent.
    public let path: String
    /// The query without "?"; nil when there was no "?".
    public let query: String?
    /// Normalised: lowercase scheme and host, default port dropped ("http://example.com/a?b").
    /// The URL sent upstream and the base of cache keys. Written once, here: a request needs it up to four times
    /// (its log line, the cache key, the upstream request, the stored entry), and each was an allocation.
    public private(set) var description: String

    /// Lowercases `scheme` and `host` and turns an empty path into "/", so equal URLs compare equal.
    public init(scheme: String, host: String, port: Int, path: String, query: String?) {
        self.scheme = scheme.asciiLowercased
        self.host = host.asciiLowercased
        self.port = port
        self.path = path.isEmpty ? "/" : path
        self.query = query
        description = ""
        description = rendered()
    }

    /// Equal when every part is; `description` follows from them.
    public static func == (lhs: AbsoluteURL, rhs: AbsoluteURL) -> Bool {
        lhs.scheme == rhs.scheme && lhs.host == rhs.host && lhs.port == rhs.port && lhs.path == rhs.path
            && lhs.query == rhs.query
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(scheme)
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(path)
        hasher.combine(query)
    }

    /// Parses an absolute http(s) URL, such as a request target, a `Location` value or an admin purge URL.
    /// Nil when the text is not one, or has userinfo, a fragment, an empty host or a bad port.
    public init?(string: String) {
        guard case .success(let url) = Self.parse(string) else { return nil }
        self = url
    }

    public var isDefaultPort: Bool {
        port == Self.defaultPort(forScheme: scheme)
    }

    /// The `Host` header value: host, or host:port when the port is not the default; IPv6 in brackets.
    public var authority: String {
        String(unsafeUninitializedCapacity: host.utf8.count + 24) { buffer in
            var writer = ByteWriter(buffer: buffer)
            writeAuthority(into: &writer)
            return writer.count
        }
    }

    /// The origin-form target to send upstream: path, then "?" and the query when there is one.
    public var pathAndQuery: String {
        if let query { return "\(path)?\(query)" }
        return path
    }

    /// `description`, written straight into the string's own storage, sized up front: string interpolation or `+=`
    /// cost far more per piece, an intermediate byte array one more allocation.
    private func rendered() -> String {
        // "://", brackets, ":" and a port of any Int (20 characters with its sign), "?".
        let capacity = scheme.utf8.count + host.utf8.count + path.utf8.count + (query?.utf8.count ?? 0) + 32
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            var writer = ByteWriter(buffer: buffer)
            scheme.withUTF8Bytes { writer.put($0) }
            writer.put(HTTPSyntax.colon)
            writer.put(0x2F)  // "/"
            writer.put(0x2F)
            writeAuthority(into: &writer)
            path.withUTF8Bytes { writer.put($0) }
            if let query {
                writer.put(0x3F)  // "?"
                query.withUTF8Bytes { writer.put($0) }
            }
            return writer.count
        }
    }

    /// Writes `authority`'s bytes: at most the host's plus 23 (brackets, ":", and any Int as a port, sign included;
    /// `parse` allows 1 to 65535, the memberwise initialiser anything).
    private func writeAuthority(into writer: inout ByteWriter) {
        host.withUTF8Bytes { host in
            let isIPv6 = host.contains(HTTPSyntax.colon)
            if isIPv6 { writer.put(0x5B) }  // "["
            writer.put(host)
            if isIPv6 { writer.put(0x5D) }  // "]"
        }
        if !isDefaultPort {
            writer.put(HTTPSyntax.colon)
            String(port).withUTF8Bytes { writer.put($0) }
        }
    }

    static func defaultPort(forScheme scheme: String) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    /// Parses `scheme "://" authority path-abempty [ "?" query ]` (RFC 3986 §3) for http and https,
    /// reporting why a text is not acceptable.
    static func parse(_ text: String) -> Result<AbsoluteURL, WireError> {
        // Read in place: every proxied request comes through here, and a copy of its bytes was an allocation.
        text.withUTF8Bytes { parse(bytes: $0[...]) }
    }

    private static func parse(bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Result<AbsoluteURL, WireError> {
        guard let colon = bytes.firstIndex(of: HTTPSyntax.colon), isScheme(bytes[..<colon]),
            bytes[(colon + 1)...].starts(with: [0x2F, 0x2F])
        else {
            return .failure(.badTarget("it is neither a path starting with \"/\" nor an absolute http(s) URL"))
        }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).asciiLowercased
        guard let defaultPort = defaultPort(forScheme: scheme) else {
            return .failure(.unsupportedScheme(scheme))
        }
        for byte in bytes {
            // ASCII only, as a URI is (RFC 3986 §2); see `RequestParser.parseRequestLine` for why it matters here.
            if byte <= HTTPSyntax.space || byte >= 0x7F {
                return .failure(.badTarget("it has a space, a control character or a non-ASCII byte"))
            }
            // RFC 9112 §3.2.2 has no fragment in absolute-form; a client must not send one.
            if byte == 0x23 {
                return .failure(.badTarget("it has a fragment (\"#\")"))
            }
        }
        let authorityStart = colon + 3
        let authorityEnd = bytes[authorityStart...].firstIndex { $0 == 0x2F || $0 == 0x3F } ?? bytes.endIndex
        let hostAndPort: (host: String, port: Int)
        switch parseAuthority(bytes[authorityStart..<authorityEnd], defaultPort: defaultPort) {
        case .success(let parsed): hostAndPort = parsed
        case .failure(let error): return .failure(error)
        }
        let queryMark = bytes[authorityEnd...].firstIndex(of: 0x3F)
        let path = String(decoding: bytes[authorityEnd..<(queryMark ?? bytes.endIndex)], as: UTF8.self)
        let query = queryMark.map { String(decoding: bytes[($0 + 1)...], as: UTF8.self) }
        return .success(
            AbsoluteURL(scheme: scheme, host: hostAndPort.host, port: hostAndPort.port, path: path, query: query)
        )
    }

    /// Parses `host [ ":" port ]` (RFC 3986 §3.2); with a nil `defaultPort` the port is required, as CONNECT's
    /// authority-form demands (RFC 9112 §3.2.3). The host comes back lowercased, an IPv6 address without brackets.
    static func parseAuthority<Bytes: BidirectionalCollection<UInt8>>(
        _ bytes: Bytes,
        defaultPort: Int?
    ) -> Result<(host: String, port: Int), WireError> where Bytes.Index == Int, Bytes.SubSequence == Bytes {
        // RFC 9110 §4.2.4: userinfo in an http(s) URI is deprecated and must be rejected as invalid.
        if bytes.contains(0x40) {
            return .failure(.badTarget("it contains userinfo (\"@\")"))
        }
        let hostBytes: Bytes
        let portBytes: Bytes?
        let isIPv6: Bool
        if bytes.first == 0x5B {
            guard let close = bytes.firstIndex(of: 0x5D) else {
                return .failure(.badTarget("an IPv6 address has no closing \"]\""))
            }
            hostBytes = bytes[(bytes.startIndex + 1)..<close]
            let rest = bytes[(close + 1)...]
            if rest.isEmpty {
                portBytes = nil
            } else if rest.first == HTTPSyntax.colon {
                portBytes = rest.dropFirst()
            } else {
                return .failure(.badTarget("an IPv6 address is followed by something other than a port"))
            }
            isIPv6 = true
        } else if let colon = bytes.lastIndex(of: HTTPSyntax.colon) {
            hostBytes = bytes[..<colon]
            portBytes = bytes[(colon + 1)...]
            isIPv6 = false
        } else {
            hostBytes = bytes
            portBytes = nil
            isIPv6 = false
        }

        if hostBytes.isEmpty {
            return .failure(.badTarget("the host is empty"))
        }
        if isIPv6 {
            guard hostBytes.contains(HTTPSyntax.colon),
                hostBytes.allSatisfy({ HTTPSyntax.hexValue($0) != nil || $0 == HTTPSyntax.colon || $0 == 0x2E })
            else {
                return .failure(.badTarget("the host is not an IPv6 address"))
            }
        } else {
            // A reg-name or IPv4 address; percent-encoded and sub-delim hosts are legal but only ever used to
            // confuse, so the host must be letters, digits, "-", ".", "_" and "~".
            guard hostBytes.allSatisfy(isHostByte) else {
                return .failure(.badTarget("the host may contain only letters, digits, \"-\", \".\", \"_\" and \"~\""))
            }
        }

        let port: Int
        // RFC 3986 §3.2.3: an empty port is the same as none.
        if let portBytes, !portBytes.isEmpty {
            guard portBytes.count <= 5, portBytes.allSatisfy({ HTTPSyntax.digitValue($0) != nil }),
                let parsed = Int(String(decoding: portBytes, as: UTF8.self)), (1...65535).contains(parsed)
            else {
                return .failure(.badTarget("the port is not a number from 1 to 65535"))
            }
            port = parsed
        } else if let defaultPort {
            port = defaultPort
        } else {
            return .failure(.badTarget("CONNECT needs host:port"))
        }
        return .success((String(decoding: hostBytes, as: UTF8.self).asciiLowercased, port))
    }

    /// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` (RFC 3986 §3.1).
    private static func isScheme(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard let first = bytes.first, isAlpha(first) else { return false }
        return bytes.allSatisfy {
            isAlpha($0) || HTTPSyntax.digitValue($0) != nil || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E
        }
    }

    private static func isAlpha(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        isAlpha(byte) || HTTPSyntax.digitValue(byte) != nil || byte == 0x2D || byte == 0x2E || byte == 0x5F
            || byte == 0x7E
    }
}

/// Fills a new string's storage, which was sized for everything written.
private struct ByteWriter {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0

    init(buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        _ = UnsafeMutableBufferPointer(rebasing: buffer[count..<count + bytes.count]).initialize(from: bytes)
        count += bytes.count
    }

    mutating func put(_ byte: UInt8) {
        buffer[count] = byte
        count += 1
    }
}
