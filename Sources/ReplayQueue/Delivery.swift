/// A queued request that left the queue because its origin answered, kept in a short log.
public struct Delivery: Sendable, Equatable {
    public var id: String
    public var origin: String
    public var method: String
    public var url: String
    public var route: String
    /// The answer's status code.
    public var status: Int
    /// Sends it took, the answered one included.
    public var attempts: Int
    /// Milliseconds since 1970.
    public var enqueuedAt: Int64
    public var deliveredAt: Int64

    public init(
        id: String, origin: String, method: String, url: String, route: String, status: Int, attempts: Int,
        enqueuedAt: Int64, deliveredAt: Int64
    ) {
        self.id = id
        self.origin = origin
        self.method = method
        self.url = url
        self.route = route
        self.status = status
        self.attempts = attempts
        self.enqueuedAt = enqueuedAt
        self.deliveredAt = deliveredAt
    }
}
