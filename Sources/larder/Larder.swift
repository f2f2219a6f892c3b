import ArgumentParser
import CCurl
import CMimalloc
import GRDBSQLite

/// The `larder` command: a local caching HTTP forward proxy.
@main
struct Larder: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        abstract: "A local caching HTTP forward proxy.",
        discussion: "Point http_proxy and https_proxy at it: http_proxy=http://127.0.0.1:3128 curl http://example.com/",
        version: version,
        subcommands: [Serve.self, CheckConfig.self, StatsCommand.self, PurgeCommand.self, ListCommand.self, QueueCommand.self, Version.self],
        defaultSubcommand: Serve.self
    )
}

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print Larder's version and those of the libraries it runs on.")

    func run() {
        print("larder \(Larder.version)")
        print(String(cString: curl_version()))
        print("SQLite \(String(cString: sqlite3_libversion()))")
        print("mimalloc \(Self.mimallocVersion)")
    }

    /// `mi_version()` is major * 100 + minor * 10 + patch (209 is 2.0.9).
    static var mimallocVersion: String {
        let version = Int(mi_version())
        return "\(version / 100).\(version / 10 % 10).\(version % 10)"
    }
}
