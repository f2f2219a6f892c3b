/// When the exchange that produced a stored response happened, by Larder's clock, in seconds since 1970:
/// `request_time` and `response_time` of RFC 9111 §4.2.3.
public struct StoredTimes: Sendable, Equatable, Hashable {
    /// When the request that produced the stored response was sent (`request_time`, RFC 9111 §4.2.3).
    public var requestTime: Int64
    /// When that response was received (`response_time`, RFC 9111 §4.2.3).
    public var responseTime: Int64

    public init(requestTime: Int64, responseTime: Int64) {
        self.requestTime = requestTime
        self.responseTime = responseTime
    }
}
