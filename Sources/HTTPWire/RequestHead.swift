/// A request line and its header fields, as parsed; the body travels separately.
public struct RequestHead: Sendable, Equatable {
    /// The method token, case-sensitive as sent (RFC 9110 §9.1).
    public var method: String
    /// The request target exactly as sent; `RequestTarget(parsing:method:)` interprets it.
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders

    public init(method: String, target: String, version: HTTPVersion = .http1_1, headers: HTTPHeaders = [:]) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }

    /// Whether the client asked for the connection to stay open after this exchange (RFC 9112 §9.3).
    public var wantsKeepAlive: Bool {
        if headers.listContains("Connection", token: "close") { return false }
        if version == .http1_0 { return headers.listContains("Connection", token: "keep-alive") }
        return version.major == 1 && version.minor >= 1
    }
}
