import Foundation

/// Runs `larder queue …` against a running daemon, as an operator would.
enum QueueCommandLine {
    /// `larder queue <arguments> --server 127.0.0.1:PORT` (no `--server` without a daemon), its stdout and stderr
    /// together.
    static func run(_ arguments: [String], against larder: Daemon?) async throws -> (status: Int32, output: String) {
        let directory = try TemporaryDirectory(prefix: "larder-cli")
        let output = directory.path("output")
        var environment = ProcessInfo.processInfo.environment
        environment["LARDER_CONFIG"] = "/nonexistent/larder.json"
        environment.removeValue(forKey: "NOTIFY_SOCKET")
        let process = try ChildProcess(
            executable: try Daemon.binaryPath(),
            arguments: ["queue"] + arguments + (larder.map { ["--server", "127.0.0.1:\($0.port)"] } ?? []),
            environment: environment,
            stdout: output,
            stderr: output
        )
        let status = try await process.waitForExit(timeout: .seconds(30))
        return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }
}
