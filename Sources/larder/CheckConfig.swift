import ArgumentParser
import CachePolicy

struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a config file: prints ok, or every problem with its JSON path."
    )

    @Argument(help: "The config file to check.")
    var file: String

    func run() throws {
        do {
            let config = try ConfigLoader.load(path: file)
            for warning in config.warnings { print("warning: \(warning)") }
            print("ok")
        } catch {
            for problem in error.problems { print(problem) }
            throw ExitCode(ConfigLoader.badConfigExitCode)
        }
    }
}
