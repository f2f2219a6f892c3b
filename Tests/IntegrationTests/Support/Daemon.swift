import Foundation
import Glibc
import Testing

/// The real `larder` executable, run as a child process for one test with directories of its own.
///
/// It runs `larder serve --listen 127.0.0.1:0 [--config FILE] <arguments>` with `HOME`, `XDG_CACHE_HOME`,
/// `XDG_STATE_HOME` and `XDG_CONFIG_HOME` inside a fresh temporary directory, and without the test runner's
/// proxy, `LARDER_*` and systemd variables, so tests never share state. Its stdout and stderr go, interleaved,
/// to a log file in that directory. Deinit kills a daemon still running; the directory goes when the last
/// daemon using it (see `restart()`) is gone.
final class Daemon: Sendable {
    /// The port the daemon reported in its `msg=listening` log line.
    let port: Int
    /// The config file passed as `--config`, if any.
    let configPath: String?
    /// The file receiving this process's stdout and stderr.
    let logPath: String
    private let directory: TemporaryDirectory
    private let process: ChildProcess
    private let launch: Launch

    /// What `restart()` needs to run the daemon again the same way.
    private struct Launch: Sendable {
        var binary: String
        var configPath: String?
        var arguments: [String]
        var environment: [String: String]
    }

    private init(port: Int, logPath: String, directory: TemporaryDirectory, process: ChildProcess, launch: Launch) {
        self.port = port
        self.logPath = logPath
        self.directory = directory
        self.process = process
        self.launch = launch
        configPath = launch.configPath
    }

    deinit {
        if process.isRunning {
            process.signal(SIGKILL)
            process.waitForExitBlocking(timeout: .seconds(10))
        }
    }

    /// Starts a daemon and returns once it logs `msg=listening` (within 20 seconds).
    ///
    /// `config` is JSON text written to `<stateDirectory>/larder.json` and passed as `--config`; every
    /// `{{stateDirectory}}` in it is replaced by the directory's path first. With no `config`, no `--config`
    /// is passed and the daemon falls back to its own defaults.
    /// `environment` entries are set last, so they can put back a variable the harness removed.
    static func start(
        config: String? = nil,
        arguments: [String] = [],
        environment: [String: String] = [:]
    ) async throws -> Daemon {
        let binary = try binaryPath()
        let directory = try TemporaryDirectory(prefix: "larder-it")
        for name in ["home", "cache", "state", "config"] {
            try FileManager.default.createDirectory(
                atPath: directory.path(name), withIntermediateDirectories: true
            )
        }
        var configPath: String? = nil
        if let config {
            let path = directory.path("larder.json")
            let text = config.replacingOccurrences(of: "{{stateDirectory}}", with: directory.url.path)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            configPath = path
        }
        let launch = Launch(binary: binary, configPath: configPath, arguments: arguments, environment: environment)
        return try await run(launch, in: directory)
    }

    /// Starts a new daemon process with the same binary, config, arguments, environment and directories (so
    /// the cache and state survive), on a new port. Throws if this one is still running.
    func restart() async throws -> Daemon {
        guard !process.isRunning else { throw HarnessError.daemonStillRunning(pid: pid) }
        return try await Self.run(launch, in: directory)
    }

    var pid: Int32 { process.pid }

    /// `http://127.0.0.1:PORT`, for `curl --proxy` or `http_proxy`.
    var proxy: String { "http://127.0.0.1:\(port)" }

    /// The temporary directory holding `home/`, `cache/` (XDG_CACHE_HOME), `state/` (XDG_STATE_HOME),
    /// `config/` (XDG_CONFIG_HOME), the config file and the logs.
    var stateDirectory: URL { directory.url }

    /// The daemon's `XDG_CACHE_HOME`.
    var cacheHome: URL { directory.url.appendingPathComponent("cache", isDirectory: true) }

    /// The daemon's `XDG_STATE_HOME`.
    var stateHome: URL { directory.url.appendingPathComponent("state", isDirectory: true) }

    var isRunning: Bool { process.isRunning }

    /// The exit status once the process has exited (128 + signal number if a signal ended it).
    var exitStatus: Int32? { process.exitStatus }

    /// Every complete line the process has written to stdout and stderr so far.
    var logLines: [String] {
        let running = process.isRunning
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        var lines = text.lines
        // The last element is "" after a final newline, or a line still being written.
        if let last = lines.last, last.isEmpty || running { lines.removeLast() }
        return lines
    }

    /// The whole log as one string, for failure messages.
    var log: String { logLines.joined(separator: "\n") }

    /// The first log line (from the start of this process's log) containing `text`, or with `occurrence`,
    /// the n-th such line (to await a second reload, say). Throws if it has not appeared within `timeout`,
    /// or at once if the process exits without writing it.
    @discardableResult
    func waitForLog(containing text: String, occurrence: Int = 1, timeout: Duration = .seconds(10)) async throws
        -> String
    {
        try await Poll.value("larder's log to contain \(text.debugDescription) (×\(occurrence))", timeout: timeout) {
            let status = process.exitStatus
            let matches = logLines.filter { $0.contains(text) }
            if matches.count >= occurrence { return matches[occurrence - 1] }
            if let status {
                throw HarnessError.malformed(
                    "larder exited (status \(status)) without logging \(text.debugDescription) "
                        + "\(occurrence) time(s); its log:\n\(log)"
                )
            }
            return nil
        }
    }

    /// Sends SIGTERM and returns the exit status once the process has exited (0 for a clean drain).
    @discardableResult
    func terminate(timeout: Duration = .seconds(15)) async throws -> Int32 {
        process.signal(SIGTERM)
        return try await process.waitForExit(timeout: timeout)
    }

    /// Sends SIGKILL and waits for the process to be reaped.
    func kill9() {
        process.signal(SIGKILL)
        process.waitForExitBlocking(timeout: .seconds(10))
    }

    /// Sends any signal (SIGHUP to reload the config, say).
    func signal(_ signal: Int32) {
        process.signal(signal)
    }

    /// The number of entries in `/proc/PID/fd`, or -1 (with a recorded issue) if it cannot be read.
    func openFileDescriptorCount() -> Int {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        } catch {
            Issue.record("cannot list /proc/\(pid)/fd: \(error)")
            return -1
        }
    }

    /// The `larder` executable: `$LARDER_BINARY`, else `larder` in the directory of the running test
    /// executable (`.build/<triple>/debug/`, where `swift test` builds it, since the test target depends on it).
    static func binaryPath() throws -> String {
        let files = FileManager.default
        if let override = ProcessInfo.processInfo.environment["LARDER_BINARY"], !override.isEmpty {
            guard files.isExecutableFile(atPath: override) else {
                throw HarnessError.binaryNotFound("LARDER_BINARY=\(override) is not an executable file")
            }
            return override
        }
        let runner = try files.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let candidate = URL(fileURLWithPath: runner).deletingLastPathComponent().appendingPathComponent("larder").path
        guard files.isExecutableFile(atPath: candidate) else {
            throw HarnessError.binaryNotFound(
                "no larder executable at \(candidate) (next to the test runner); "
                    + "build it with `swift build --product larder`, or set LARDER_BINARY"
            )
        }
        return candidate
    }

    /// The port in a logfmt line such as `ts=… level=info msg=listening address=127.0.0.1:43123`.
    static func listeningPort(in line: String) -> Int? {
        let fields = line.split(separator: " ")
        guard fields.contains(where: { $0 == "msg=listening" || $0 == "msg=\"listening\"" }) else { return nil }
        guard let field = fields.first(where: { $0.hasPrefix("address=") }) else { return nil }
        let address = field.dropFirst("address=".count).filter { $0 != "\"" }
        guard let colon = address.lastIndex(of: ":") else { return nil }
        return Int(address[address.index(after: colon)...])
    }

    private static func run(_ launch: Launch, in directory: TemporaryDirectory) async throws -> Daemon {
        var generation = 1
        while FileManager.default.fileExists(atPath: directory.path("larder-\(generation).log")) { generation += 1 }
        let logPath = directory.path("larder-\(generation).log")
        var arguments = ["serve", "--listen", "127.0.0.1:0"]
        if let configPath = launch.configPath { arguments += ["--config", configPath] }
        arguments += launch.arguments
        let process = try ChildProcess(
            executable: launch.binary,
            arguments: arguments,
            environment: environment(launch.environment, directory: directory),
            stdout: logPath,
            stderr: logPath
        )
        let readLog = { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
        do {
            let port = try await Poll.value("larder (pid \(process.pid)) to log msg=listening", timeout: .seconds(20)) {
                // Read the status before the log: a daemon that exits right after logging still counts as started.
                let status = process.exitStatus
                let lines = readLog().lines
                if let port = lines.lazy.compactMap(listeningPort(in:)).first { return port }
                if let status { throw HarnessError.daemonExited(status: status, log: readLog()) }
                return nil
            }
            return Daemon(port: port, logPath: logPath, directory: directory, process: process, launch: launch)
        } catch HarnessError.timedOut(let what) {
            process.signal(SIGKILL)
            process.waitForExitBlocking(timeout: .seconds(10))
            throw HarnessError.timedOut("\(what); its log so far:\n\(readLog())")
        } catch {
            process.signal(SIGKILL)
            process.waitForExitBlocking(timeout: .seconds(10))
            throw error
        }
    }

    /// The runner's environment without anything that would make tests share state or talk to a real proxy.
    private static func environment(_ overrides: [String: String], directory: TemporaryDirectory) -> [String: String] {
        let removed: Set<String> = [
            "http_proxy", "https_proxy", "all_proxy", "no_proxy", "ftp_proxy",
            "notify_socket", "listen_fds", "listen_pid", "listen_fdnames", "watchdog_usec", "watchdog_pid",
        ]
        var environment = ProcessInfo.processInfo.environment.filter { name, _ in
            !removed.contains(name.lowercased()) && !name.hasPrefix("LARDER_")
        }
        environment["HOME"] = directory.path("home")
        environment["XDG_CACHE_HOME"] = directory.path("cache")
        environment["XDG_STATE_HOME"] = directory.path("state")
        environment["XDG_CONFIG_HOME"] = directory.path("config")
        environment.merge(overrides) { _, override in override }
        return environment
    }
}
