import Foundation

/// Larder's `GET /_larder/stats` JSON, read with Foundation's parser (never Larder's own code).
struct CacheStatsSnapshot: Sendable {
    var entries: Int
    var memoryEntries: Int
    var memoryBytes: Int
    var diskEntries: Int
    var diskBytes: Int
    /// Requests by cache status, lowercased (`hit`, `miss`, `expired`, `revalidated`, `stale`, `bypass`).
    var requests: [String: Int]
    var hitRatio: Double

    /// Fetches `/_larder/stats` from `larder` with curl (no proxy: it is Larder's own endpoint).
    static func fetch(from larder: Daemon) async throws -> CacheStatsSnapshot {
        let result = try await Curl.run(["--noproxy", "*", "http://127.0.0.1:\(larder.port)/_larder/stats"], via: nil)
        guard result.status == 200 else {
            throw HarnessError.malformed("/_larder/stats answered \(result.status): \(result.bodyText)")
        }
        return try CacheStatsSnapshot(json: result.body)
    }

    init(json: [UInt8]) throws {
        guard let root = try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any],
            let memory = root["memory"] as? [String: Any], let disk = root["disk"] as? [String: Any],
            let requests = root["requests"] as? [String: Any]
        else {
            throw HarnessError.malformed("unexpected /_larder/stats: \(String(decoding: json, as: UTF8.self))")
        }
        func int(_ object: [String: Any], _ name: String) throws -> Int {
            guard let value = object[name] as? NSNumber else {
                throw HarnessError.malformed("/_larder/stats has no number \(name): \(object)")
            }
            return value.intValue
        }
        entries = try int(root, "entries")
        memoryEntries = try int(memory, "entries")
        memoryBytes = try int(memory, "bytes")
        diskEntries = try int(disk, "entries")
        diskBytes = try int(disk, "bytes")
        var counts: [String: Int] = [:]
        for (name, value) in requests where name != "hitRatio" {
            if let number = value as? NSNumber { counts[name] = number.intValue }
        }
        self.requests = counts
        guard let ratio = requests["hitRatio"] as? NSNumber else {
            throw HarnessError.malformed("/_larder/stats has no requests.hitRatio: \(requests)")
        }
        hitRatio = ratio.doubleValue
    }

    func count(_ status: String) -> Int { requests[status.lowercased(), default: 0] }
}
