/// How a request names its target (RFC 9112 §3.2).
public enum RequestTarget: Sendable, Equatable {
    /// "/path?query", as sent to an origin server (RFC 9112 §3.2.1).
    case origin(String)
    /// "http://host/path", as sent to a proxy (RFC 9112 §3.2.2); only http and https.
    case absolute(AbsoluteURL)
    /// "host:port", only for CONNECT (RFC 9112 §3.2.3); an IPv6 host without its brackets.
    case authority(host: String, port: Int)
    /// "*", only for a server-wide OPTIONS (RFC 9112 §3.2.4).
    case asterisk

    /// Interprets a request line's target for `method`: CONNECT requires authority-form with a port;
    /// other methods take origin-form or absolute-form, and OPTIONS also "*".
    public init(parsing target: String, method: String) throws(WireError) {
        if method == "CONNECT" {
            let bytes = Array(target.utf8)
            if bytes.contains(where: { $0 == 0x2F || $0 == 0x3F || $0 == 0x23 || $0 <= HTTPSyntax.space }) {
                throw .badTarget("CONNECT needs host:port")
            }
            switch AbsoluteURL.parseAuthority(bytes[...], defaultPort: nil) {
            case .success(let authority): self = .authority(host: authority.host, port: authority.port)
            case .failure(let error): throw error
            }
            return
        }
        if target == "*" {
            guard method == "OPTIONS" else { throw .badTarget("\"*\" is allowed only with OPTIONS") }
            self = .asterisk
            return
        }
        if target.utf8.first == 0x2F {
            for byte in target.utf8 {
                if byte <= HTTPSyntax.space || byte >= 0x7F {
                    throw .badTarget("it has a space, a control character or a non-ASCII byte")
                }
                if byte == 0x23 { throw .badTarget("it has a fragment (\"#\")") }
            }
            self = .origin(target)
            return
        }
        switch AbsoluteURL.parse(target) {
        case .success(let url): self = .absolute(url)
        case .failure(let error): throw error
        }
    }
}
