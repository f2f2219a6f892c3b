extension RFC9111 {
    /// Status codes defined as heuristically cacheable (RFC 9110 §15.1; RFC 9111 §4.2.2).
    public static let heuristicallyCacheableStatuses: Set<Int> = [
        200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501,
    ]

    /// The status codes whose caching requirements Larder implements: those defined by RFC 9110 §15.
    /// `must-understand` limits storage to these (RFC 9111 §5.2.2.3).
    public static let understoodStatuses: Set<Int> =
        Set([100, 101])
        .union(200...206)
        .union(300...305)
        .union([307, 308])
        .union(400...417)
        .union([421, 422, 426])
        .union(500...505)

    /// Final status codes are 2xx to 5xx; 1xx are interim (RFC 9110 §15).
    public static func isFinal(status: Int) -> Bool {
        (200..<600).contains(status)
    }
}
