import Foundation

/// One stored response as `GET /_larder/entries` lists it, read with Foundation's parser (never Larder's own code).
struct PolicyStoredEntry: Sendable {
    var url: String
    var status: Int
    /// The RFC 9111 §4.2.3 age, in seconds.
    var age: Int
    var route: String

    /// The entries whose URL starts with `prefix`.
    static func list(in larder: Daemon, prefix: String) async throws -> [PolicyStoredEntry] {
        let query = prefix.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? prefix
        let result = try await Curl.get("http://127.0.0.1:\(larder.port)/_larder/entries?prefix=\(query)", via: nil)
        guard result.status == 200, let items = try JSONSerialization.jsonObject(with: Data(result.body)) as? [[String: Any]]
        else {
            throw HarnessError.malformed("/_larder/entries answered \(result.status): \(result.bodyText)")
        }
        return items.map { item in
            PolicyStoredEntry(
                url: item["url"] as? String ?? "", status: (item["status"] as? NSNumber)?.intValue ?? 0,
                age: (item["age"] as? NSNumber)?.intValue ?? -1, route: item["route"] as? String ?? "")
        }
    }

    /// Waits, without a request reaching the origin, until what is stored for exactly `url` is at least `age`
    /// seconds old in Larder's eyes.
    static func waitUntil(_ url: String, in larder: Daemon, isAtLeast age: Int, timeout: Duration = .seconds(15))
        async throws
    {
        try await CachePoll.until("\(url) to be \(age) s old in larder", timeout: timeout) {
            try await list(in: larder, prefix: url).contains { $0.url == url && $0.age >= age }
        }
    }
}
