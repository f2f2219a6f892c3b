import Foundation
import Glibc
import Testing

/// systemd socket activation (sd_listen_fds(3)), as `systemd/larder.socket` sets it up, driven by
/// `systemd-socket-activate`: it listens, and at the first connection starts Larder with the socket as descriptor 3.
@Suite("Socket activation")
struct SocketActivationTests {
    static let activator = "/usr/bin/systemd-socket-activate"

    @Test("started by systemd-socket-activate, Larder serves on the socket it was handed and stops on SIGTERM")
    func servesOnTheInheritedSocket() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.activator) else {
            print("skipped: \(Self.activator) is not installed (Debian package systemd)")
            return
        }
        let origin = try OriginServer { _ in .ok("activated", cacheControl: "max-age=60") }
        let directory = try TemporaryDirectory(prefix: "larder-activation")
        let config = directory.path("larder.json")
        try #"{"listen": "192.0.2.1:9"}"#.write(toFile: config, atomically: true, encoding: .utf8)
        // A port to hand over: free a moment ago. The activator binds it, not Larder, whose config names an address
        // it could not bind: it serves only if it takes the socket it is given.
        let (probe, port) = try Socket.listen()
        Glibc.close(probe)
        let log = directory.path("activation.log")
        var arguments = ["-l", "127.0.0.1:\(port)"]
        for (name, value) in [
            ("HOME", directory.path("")), ("XDG_CACHE_HOME", directory.path("")), ("XDG_STATE_HOME", directory.path("")),
        ] {
            arguments += ["-E", "\(name)=\(value)"]
        }
        arguments += [try Daemon.binaryPath(), "serve", "--config", config]
        let activator = try ChildProcess(
            executable: Self.activator, arguments: arguments,
            environment: ProcessInfo.processInfo.environment.filter { !$0.key.lowercased().hasSuffix("_proxy") },
            stdout: log, stderr: log)
        defer {
            if activator.isRunning {
                activator.signal(SIGKILL)
                activator.waitForExitBlocking(timeout: .seconds(10))
            }
        }
        try await Poll.until("systemd-socket-activate to listen on :\(port)", timeout: .seconds(10)) {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("Listening on")
        }

        let proxy = "http://127.0.0.1:\(port)"
        let first = try await Curl.run([origin.url("/a")], proxy: proxy)
        #expect(first.exitCode == 0, "curl: \(first.stderr)")
        #expect(first.bodyText == "activated")
        #expect(first.xCache == "MISS")
        #expect(try await Curl.run([origin.url("/a")], proxy: proxy).xCache == "HIT")
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(text.contains("msg=listening address=127.0.0.1:\(port)"), "\(text)")

        activator.signal(SIGTERM)
        #expect(try await activator.waitForExit(timeout: .seconds(20)) == 0)
    }
}
