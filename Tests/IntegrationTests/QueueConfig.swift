/// Configs for the offline-queue tests: one route that queues writes, and short back-offs so replays come quickly.
enum QueueConfig {
    /// A `writes` route with `queue: true` for POST, PUT, PATCH and DELETE, back-off from 100 ms up to 500 ms.
    static func writes(maxAttempts: Int = 1000, maxBodySize: String? = nil) -> String {
        let size = maxBodySize.map { #", "maxBodySize": "\#($0)""# } ?? ""
        return #"""
            {"routes": [{"name": "writes", "match": {"methods": ["POST", "PUT", "PATCH", "DELETE"]}, "queue": true}],
             "queue": {"backoffBase": "100ms", "backoffMax": "500ms", "maxAttempts": \#(maxAttempts)\#(size)}}
            """#
    }

    /// `curl` arguments for a request with a text body, sent as `Content-Type: text/plain`.
    static func write(_ method: String, _ url: String, body: String) -> [String] {
        ["-X", method, "-H", "Content-Type: text/plain", "--data-binary", body, url]
    }
}
