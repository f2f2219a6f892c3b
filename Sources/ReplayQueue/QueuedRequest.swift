import HTTPWire

/// An unsafe request kept for replay, as stored: what to send, where it stands, and what happened last.
public struct QueuedRequest: Sendable, Equatable {
    /// Where a request stands in its origin's queue.
    public enum State: Sendable, Equatable {
        /// Waiting its turn, or its back-off.
        case pending
        /// The origin refused the credentials (401/403): the request and every later one to the origin wait for an
        /// operator's retry or drop.
        case held(reason: String)
        /// Given up on (too many attempts, too old, or never sendable); kept until retried or dropped.
        case dead(reason: String)
    }

    /// A random UUID, lowercased: the admin handle, and the `Idempotency-Key` the request is replayed with.
    public var id: String
    /// `scheme://host:port`: the unit of ordering and of holding.
    public var origin: String
    public var method: String
    /// The absolute URL, normalised (`AbsoluteURL.description`).
    public var url: String
    /// End-to-end fields, in the order the client sent them.
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The route that queued it.
    public var route: String
    /// Milliseconds since 1970.
    public var enqueuedAt: Int64
    /// Times it was sent (answered or not).
    public var attempts: Int
    /// Milliseconds since 1970 before which the replayer does not send it.
    public var nextAttemptAt: Int64
    /// Why the last attempt got no answer, as `error_type: details` (RFC 9209 types).
    public var lastError: String?
    /// The status of the last answer that did not deliver it (401/403).
    public var lastStatus: Int?
    public var state: State

    public init(
        id: String, origin: String, method: String, url: String, headers: HTTPHeaders, body: [UInt8], route: String,
        enqueuedAt: Int64, attempts: Int = 0, nextAttemptAt: Int64, lastError: String? = nil, lastStatus: Int? = nil,
        state: State = .pending
    ) {
        self.id = id
        self.origin = origin
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.route = route
        self.enqueuedAt = enqueuedAt
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.lastStatus = lastStatus
        self.state = state
    }

    /// The key origins deduplicate replays by: the client's own `Idempotency-Key` when it sent one (it may retry
    /// with that key itself, so replacing it would defeat the origin's deduplication), else the queue id.
    public var idempotencyKey: String {
        headers["Idempotency-Key"] ?? id
    }
}
