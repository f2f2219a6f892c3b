import ArgumentParser
import Foundation

struct QueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Inspect and steer the offline queue of writes waiting for their origin.",
        subcommands: [List.self, Retry.self, Drop.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pending, held and dead requests.")
        @OptionGroup var server: ServerOptions

        func run() throws {
            guard let answer = try server.client().json("GET", "/_larder/queue") as? [String: Any] else {
                throw AdminError("unexpected queue format")
            }
            let requests = answer["requests"] as? [[String: Any]] ?? []
            let rows = requests.map { request -> [String] in
                // A dead letter's reason says that it gave up, its last error why: the operator needs both.
                let notes = [request["reason"], request["lastError"]].compactMap { $0 as? String }
                return [
                    "\(request["id"] ?? "")", "\(request["state"] ?? "")", "\(request["attempts"] ?? 0)",
                    "\(request["method"] ?? "") \(request["url"] ?? "")", notes.joined(separator: "; "),
                ]
            }
            print(Table(columns: ["id", "state", "attempts", "request", "reason / last error"], rows: rows).rendered)
            print("delivered \(answer["delivered"] ?? 0), dead \(answer["deadLettered"] ?? 0)")
        }
    }

    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send held, dead or waiting requests again now.")
        @Argument(help: "One request's id; all when left out.") var id: String?
        @OptionGroup var server: ServerOptions

        func run() throws {
            let target = id.map { "/_larder/queue/retry?id=\(PurgeCommand.encode($0))" } ?? "/_larder/queue/retry"
            let answer = try server.client().json("POST", target) as? [String: Any]
            print("retried \(answer?["retried"] ?? 0)")
        }
    }

    struct Drop: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a request from the queue without sending it.")
        @Argument(help: "The request's id.") var id: String
        @OptionGroup var server: ServerOptions

        func run() throws {
            let answer = try server.client().json("DELETE", "/_larder/queue/\(PurgeCommand.encode(id))") as? [String: Any]
            guard answer?["dropped"] as? Bool == true else { throw AdminError("no queued request has id \(id)") }
            print("dropped \(id)")
        }
    }
}
