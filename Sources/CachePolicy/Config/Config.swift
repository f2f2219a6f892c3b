/// Everything the daemon runs on, validated. Built by `Config.parse(_:)` from the JSON file, or
/// `Config.default` when there is none.
public struct Config: Sendable, Equatable {
    public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// `127.0.0.1:3128`, `[::1]:3128`, `localhost:0`.
        public init?(_ text: String) {
            let host: Substring
            let port: Substring
            if text.hasPrefix("[") {
                guard let close = text.firstIndex(of: "]") else { return nil }
                host = text[text.index(after: text.startIndex)..<close]
                let rest = text[text.index(after: close)...]
                guard rest.hasPrefix(":") else { return nil }
                port = rest.dropFirst()
            } else {
                guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
                host = text[..<colon]
                port = text[text.index(after: colon)...]
            }
            guard !host.isEmpty, let number = Int(port), (0...65535).contains(number) else { return nil }
            self.init(host: String(host), port: number)
        }

        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    public struct Timeouts: Sendable, Equatable {
        /// A client must send a whole request head within this time (then 408).
        public var headerMilliseconds: Int64 = 30_000
        /// A kept-alive client connection with no request is closed after this.
        public var idleMilliseconds: Int64 = 60_000
        public var connectMilliseconds: Int64 = 10_000
        /// Longest silence from an origin, while waiting for its head or reading its body (then 504).
        public var readMilliseconds: Int64 = 60_000
        /// On SIGTERM, how long in-flight responses may take to finish.
        public var drainMilliseconds: Int64 = 10_000
        /// A CONNECT tunnel with no byte in either direction for this long is closed (Squid's `read_timeout` default),
        /// so tunnels whose peers vanished do not hold their connection slots for ever.
        public var tunnelIdleMilliseconds: Int64 = 900_000
    }

    public struct Limits: Sendable, Equatable {
        public var maxConnections = 1024
        public var maxRequestLineBytes = 8 * 1024
        public var maxHeaderBytes = 64 * 1024
    }

    /// Where and how much to cache.
    public struct Cache: Sendable, Equatable {
        /// Nil: `$CACHE_DIRECTORY` (systemd), else `$XDG_CACHE_HOME/larder`, else `~/.cache/larder`.
        public var directory: String?
        public var memoryMaxBytes: Int64 = 64 * 1024 * 1024
        public var diskMaxBytes: Int64 = 1024 * 1024 * 1024
        /// Larger responses pass through unstored (`Cache-Status: detail=too-large`).
        public var maxObjectSize: Int64 = 256 * 1024 * 1024
        /// The most heuristic freshness (10 % of the time since `Last-Modified`) may give (RFC 9111 §4.2.2).
        public var heuristicMaxAgeSeconds: Int64 = 86_400
        /// How long a request waits for another in-flight fetch of the same key before going to the origin itself.
        public var coalesceWaitMilliseconds: Int64 = 10_000
    }

    /// The replay queue for unsafe requests made while an origin is unreachable (routes with `queue`); the
    /// `ReplayQueue` target's `QueueSettings`, field for field.
    public struct ReplayQueue: Sendable, Equatable {
        /// Larger request bodies are not queued (the client gets the origin's failure).
        public var maxBodySize: Int64 = 1 << 20
        /// Attempts at one request before it is dead-lettered.
        public var maxAttempts = 10
        /// A queued request older than this is dead-lettered unreplayed.
        public var maxAgeSeconds: Int64 = 7 * 86_400
        /// The wait before a request's first replay, doubled after each failed attempt.
        public var backoffBaseMilliseconds: Int64 = 1_000
        /// The longest wait between two attempts.
        public var backoffMaxMilliseconds: Int64 = 300_000
    }

    public var listen = ListenAddress(host: "127.0.0.1", port: 3128)
    /// Clients allowed to use the proxy. Loopback only by default: never an open proxy.
    public var allow: [CIDR] = [CIDR("127.0.0.0/8")!, CIDR("::1/128")!]  // literals: always valid
    /// Ports `CONNECT` may open tunnels to.
    public var connectPorts: [Int] = [443]
    /// Destinations never contacted: link-local ranges, where cloud metadata services live.
    public var denyDestinations: [CIDR] = [CIDR("169.254.0.0/16")!, CIDR("fe80::/10")!]  // literals: always valid
    public var timeouts = Timeouts()
    public var limits = Limits()
    public var cache = Cache()
    /// The pseudonym in `Via` (RFC 9110 §7.6.3), also how Larder recognises its own requests coming back.
    public var viaName = "larder"
    public var logLevel = "info"
    /// One access log line per request.
    public var accessLog = true
    /// When set, the admin endpoints and PURGE require `Authorization: Bearer <token>`, so a Larder that
    /// listens beyond loopback can be steered only by whoever holds it.
    public var adminToken: String?
    /// PEM certificates Larder trusts when it fetches `https://` URLs, instead of the system's bundle: for origins
    /// signed by a private CA. Verification itself is never switched off.
    public var tlsCAFile: String?
    /// The routes, tried in order, and the defaults route (named "default") for requests none matches.
    public var routes = RouteTable()
    public var queue = ReplayQueue()
    /// Options that parse but have no effect where they are written; `check-config` prints them, the daemon
    /// logs them. Never a reason to refuse a config.
    public var warnings: [ConfigProblem] = []

    public init() {}

    public static let `default` = Config()
}
