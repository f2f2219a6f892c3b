import Foundation

/// The JSON body of a `202 Accepted` for a queued request.
struct QueueReceipt: Decodable, Sendable {
    var queued: Bool
    var id: String
    /// 1-based, among the origin's pending and held requests.
    var position: Int
    var origin: String
    /// The RFC 9209 error type that kept the request from its origin.
    var reason: String

    init(_ result: CurlResult) throws {
        guard result.status == 202 else {
            throw HarnessError.malformed("expected 202 for a queued request, got \(result.status): \(result.bodyText)")
        }
        self = try JSONDecoder().decode(QueueReceipt.self, from: Data(result.body))
    }
}
