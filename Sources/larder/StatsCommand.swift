import ArgumentParser
import Foundation

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Show what the running daemon has stored and how it answered, per route.")

    @OptionGroup var server: ServerOptions

    @Flag(help: "Print the daemon's JSON as it is.")
    var json = false

    func run() throws {
        let client = try server.client()
        if json {
            print(try client.send("GET", "/_larder/stats").body, terminator: "")
            return
        }
        guard let stats = try client.json("GET", "/_larder/stats") as? [String: Any] else { throw AdminError("unexpected stats format") }
        let memory = stats["memory"] as? [String: Any] ?? [:]
        let disk = stats["disk"] as? [String: Any] ?? [:]
        print("entries      \(stats["entries"] ?? 0)")
        print("memory       \(memory["entries"] ?? 0) entries, \(Self.bytes(memory["bytes"]))")
        print("disk         \(disk["entries"] ?? 0) entries, \(Self.bytes(disk["bytes"]))")
        print("evictions    \(stats["evictions"] ?? 0)")
        print("")
        let columns = ["route", "hit", "miss", "expired", "revalidated", "stale", "bypass", "queued", "hit ratio"]
        var rows: [[String]] = []
        if let total = stats["requests"] as? [String: Any] { rows.append(Self.row("(all)", total)) }
        for (name, counts) in (stats["routes"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let counts = counts as? [String: Any] { rows.append(Self.row(name, counts)) }
        }
        print(Table(columns: columns, rows: rows).rendered)
    }

    static func row(_ name: String, _ counts: [String: Any]) -> [String] {
        let ratio = (counts["hitRatio"] as? Double).map { String(format: "%.1f%%", $0 * 100) } ?? "-"
        return [name] + ["hit", "miss", "expired", "revalidated", "stale", "bypass", "queued"].map { "\(counts[$0] ?? 0)" } + [ratio]
    }

    static func bytes(_ value: Any?) -> String {
        let count = (value as? Int) ?? 0
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var size = Double(count)
        var unit = 0
        while size >= 1024 && unit < units.count - 1 {
            size /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", size, units[unit])
    }
}

/// A plain text table, columns padded to their widest cell.
struct Table {
    var columns: [String]
    var rows: [[String]]

    var rendered: String {
        let widths = columns.indices.map { index in
            ([columns[index]] + rows.map { index < $0.count ? $0[index] : "" }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                // Names (first and last columns) read left-aligned; numbers line up on the right.
                index == 0 || index == cells.count - 1 ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[index] - cell.count) + cell
            }.joined(separator: "  ")
        }
        return ([line(columns)] + rows.map(line)).joined(separator: "\n")
    }
}
