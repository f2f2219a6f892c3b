import HTTPWire

/// What Larder asks of an origin: everything libcurl needs to send one request.
public struct UpstreamRequest: Sendable {
    /// How the request body reaches libcurl.
    public enum Body: Sendable, Equatable {
        case none
        /// Exactly this many bytes will be supplied through `UpstreamTransfer.sendBody`.
        case length(Int)
        /// An unknown length (the client sent it chunked); libcurl sends it chunked too.
        case streamed
        /// The whole body, already in memory (replays, background refreshes).
        case bytes([UInt8])

        /// Supplied piece by piece through `UpstreamTransfer.sendBody`, so a full buffer can make its producer wait.
        public var isRelayed: Bool {
            switch self {
            case .length, .streamed: true
            case .none, .bytes: false
            }
        }
    }

    public var method: String
    /// Absolute `http://` or `https://` URL, normalised.
    public var url: String
    /// End-to-end fields to send as they are, in order. `Host` is derived by libcurl from `url`.
    public var headers: HTTPHeaders
    public var body: Body
    public var timeouts: UpstreamTimeouts
    /// Whether the consumer acknowledges body bytes with `UpstreamTransfer.consumed(_:)` (a client
    /// socket). False for consumers that take everything at once, such as a background refresh.
    public var paced: Bool

    public init(
        method: String, url: String, headers: HTTPHeaders, body: Body, timeouts: UpstreamTimeouts, paced: Bool = true
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeouts = timeouts
        self.paced = paced
    }
}

/// Limits on how long an origin may take; zero means no limit.
public struct UpstreamTimeouts: Sendable, Equatable {
    public var connectMilliseconds: Int
    /// Longest silence while waiting for or reading a response.
    public var readSeconds: Int

    public init(connectMilliseconds: Int = 10_000, readSeconds: Int = 60) {
        self.connectMilliseconds = connectMilliseconds
        self.readSeconds = readSeconds
    }
}
