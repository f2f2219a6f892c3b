import ArgumentParser
import Foundation

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls", abstract: "List stored responses with size, age and freshness.")

    @Option(help: "Only URLs starting with this prefix.")
    var prefix: String?

    @Option(help: "At most this many entries.")
    var limit = 100

    @OptionGroup var server: ServerOptions

    func run() throws {
        var target = "/_larder/entries?limit=\(limit)"
        if let prefix { target += "&prefix=\(PurgeCommand.encode(prefix))" }
        guard let entries = try server.client().json("GET", target) as? [[String: Any]] else {
            throw AdminError("unexpected entries format")
        }
        let rows = entries.map { entry -> [String] in
            let ttl = entry["ttl"] as? Int ?? 0
            return [
                "\(entry["status"] ?? "")", StatsCommand.bytes(entry["size"]), "\(entry["age"] ?? 0)s",
                ttl > 0 ? "fresh \(ttl)s" : "stale \(-ttl)s", "\(entry["route"] ?? "")", "\(entry["url"] ?? "")",
            ]
        }
        print(Table(columns: ["status", "size", "age", "freshness", "route", "url"], rows: rows).rendered)
    }
}
