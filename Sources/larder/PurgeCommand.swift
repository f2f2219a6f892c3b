import ArgumentParser
import Foundation

struct PurgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge", abstract: "Remove stored responses: every variant of a URL, a whole route, or everything.")

    @Argument(help: "The absolute URL to remove.")
    var url: String?

    @Option(help: "Remove every entry stored by this route.")
    var route: String?

    @Flag(help: "Empty the whole cache.")
    var all = false

    @OptionGroup var server: ServerOptions

    func validate() throws {
        if [url != nil, route != nil, all].filter({ $0 }).count != 1 {
            throw ValidationError("give exactly one of URL, --route NAME or --all")
        }
    }

    func run() throws {
        let target: String
        if let url {
            target = "/_larder/cache?url=\(Self.encode(url))"
        } else if let route {
            target = "/_larder/cache?route=\(Self.encode(route))"
        } else {
            target = "/_larder/cache"
        }
        let answer = try server.client().json("DELETE", target) as? [String: Any]
        print("purged \(answer?["purged"] ?? 0)")
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}
