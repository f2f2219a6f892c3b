import Foundation

/// `GET /_larder/queue`, decoded: every queued request with its state, the depth per origin, and the counters.
struct QueueSnapshot: Decodable, Sendable {
    struct Request: Decodable, Sendable {
        var id: String
        var origin: String
        var method: String
        var url: String
        var route: String
        /// `pending`, `held` or `dead`.
        var state: String
        var attempts: Int
        var bodyBytes: Int
        var reason: String?
        var lastError: String?
        var lastStatus: Int?
    }

    struct Depth: Decodable, Sendable, Equatable {
        var pending: Int
        var held: Int
        var dead: Int
    }

    var available: Bool
    var requests: [Request]
    var depth: [String: Depth]?
    var delivered: Int?
    var failedAttempts: Int?
    var deadLettered: Int?

    /// Reads the daemon's queue through its admin endpoint.
    static func read(from larder: Daemon) async throws -> QueueSnapshot {
        let result = try await Curl.get("http://127.0.0.1:\(larder.port)/_larder/queue", via: nil)
        guard result.status == 200 else {
            throw HarnessError.malformed("GET /_larder/queue answered \(result.status): \(result.bodyText)")
        }
        return try JSONDecoder().decode(QueueSnapshot.self, from: Data(result.body))
    }

    func request(_ id: String) -> Request? {
        requests.first { $0.id == id }
    }
}
