import ArgumentParser

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
    static let configuration = CommandConfiguration(abstract: "Print Larder's version.")

    func run() {
        print("larder \(Larder.version)")
    }
}
