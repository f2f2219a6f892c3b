import Foundation
import Glibc

/// Runs `/usr/bin/curl` as a user would, through a daemon or straight to the origin.
enum Curl {
    static let executable = "/usr/bin/curl"

    /// Runs `curl -q -sS -D <file> -o <file> (--proxy <daemon.proxy> | --noproxy '*') <arguments>`.
    ///
    /// `-q` keeps any `~/.curlrc` out. Do not pass `-o`, `-O` or `-D` yourself: the harness owns them.
    /// `stdin` feeds `--data-binary @-`, `-T -` and the like. curl failing is not an error here (check
    /// `exitCode`); curl still running after `timeout` is: it is killed and `HarnessError.timedOut` thrown.
    static func run(
        _ arguments: [String],
        via daemon: Daemon?,
        stdin: [UInt8]? = nil,
        timeout: Duration = .seconds(30)
    ) async throws -> CurlResult {
        try await run(arguments, proxy: daemon?.proxy, stdin: stdin, timeout: timeout)
    }

    /// `run(_:via:)` through the proxy at `proxy` (`http://host:port`), or straight to the origin when nil: for a
    /// Larder the harness did not start.
    static func run(
        _ arguments: [String],
        proxy: String?,
        stdin: [UInt8]? = nil,
        timeout: Duration = .seconds(30)
    ) async throws -> CurlResult {
        let directory = try TemporaryDirectory(prefix: "larder-curl")
        let files = (
            headers: directory.path("headers"), body: directory.path("body"),
            stdout: directory.path("stdout"), stderr: directory.path("stderr"), stdin: directory.path("stdin")
        )
        var input = "/dev/null"
        if let stdin {
            try Data(stdin).write(to: URL(fileURLWithPath: files.stdin))
            input = files.stdin
        }
        let route = proxy.map { ["--proxy", $0] } ?? ["--noproxy", "*"]
        let process = try ChildProcess(
            executable: executable,
            arguments: ["-q", "-sS", "-D", files.headers, "-o", files.body] + route + arguments,
            environment: environment(home: directory.url.path),
            stdin: input,
            stdout: files.stdout,
            stderr: files.stderr
        )
        let exitCode: Int32
        do {
            exitCode = try await process.waitForExit(timeout: timeout)
        } catch {
            process.signal(SIGKILL)
            process.waitForExitBlocking(timeout: .seconds(10))
            let stderr = (try? String(contentsOfFile: files.stderr, encoding: .utf8)) ?? ""
            throw HarnessError.timedOut("\(process.command) (killed after \(timeout)); stderr: \(stderr)")
        }
        let read = { (path: String) in (try? Data(contentsOf: URL(fileURLWithPath: path))).map { [UInt8]($0) } ?? [] }
        let final = CurlResult.finalHead(inDump: String(decoding: read(files.headers), as: UTF8.self))
        return CurlResult(
            exitCode: exitCode,
            status: final.status,
            headers: final.headers,
            body: read(files.body),
            stdout: String(decoding: read(files.stdout), as: UTF8.self),
            stderr: String(decoding: read(files.stderr), as: UTF8.self)
        )
    }

    /// `GET url` with extra request header lines such as `"Cache-Control: no-cache"`.
    static func get(
        _ url: String,
        via daemon: Daemon?,
        headers: [String] = [],
        timeout: Duration = .seconds(30)
    ) async throws -> CurlResult {
        try await run(headers.flatMap { ["-H", $0] } + [url], via: daemon, timeout: timeout)
    }

    /// The runner's environment without proxy variables (the harness picks the route) and with a scratch HOME.
    private static func environment(home: String) -> [String: String] {
        let removed: Set<String> = ["http_proxy", "https_proxy", "all_proxy", "no_proxy", "ftp_proxy", "curl_home"]
        var environment = ProcessInfo.processInfo.environment.filter { !removed.contains($0.key.lowercased()) }
        environment["HOME"] = home
        return environment
    }
}
