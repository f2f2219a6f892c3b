import Foundation
import Glibc
import Testing

/// What an operator relies on: systemd's notify protocol, reload, the CLI, metrics.
@Suite("Operations")
struct OperationsTests {
    @Test("under systemd the daemon reports READY, then WATCHDOG pings, RELOADING on SIGHUP and STOPPING on SIGTERM")
    func notifyProtocol() async throws {
        let directory = try TemporaryDirectory(prefix: "larder-notify")
        let notify = try NotifySocket(directory: directory.url.path)
        let larder = try await Daemon.start(
            config: "{}", environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000"]
        )
        try await Poll.until("READY=1") { notify.count("READY=1") >= 1 }
        #expect(notify.messages.first?.contains("STATUS=listening on 127.0.0.1:\(larder.port)") == true)
        try await Poll.until("two watchdog pings") { notify.count("WATCHDOG=1") >= 2 }
        larder.signal(SIGHUP)
        try await Poll.until("RELOADING=1 then READY=1 again") { notify.count("RELOADING=1") == 1 && notify.count("READY=1") == 2 }
        #expect(try await larder.terminate() == 0)
        #expect(notify.count("STOPPING=1") == 1)
    }

    @Test("without NOTIFY_SOCKET nothing is sent and the daemon runs as usual")
    func noNotifySocket() async throws {
        let larder = try await Daemon.start(config: "{}")
        let health = try await Curl.get("http://127.0.0.1:\(larder.port)/_larder/health", via: nil)
        #expect(health.status == 200)
        #expect(try await larder.terminate() == 0)
    }

    @Test("SIGHUP reloads the config for new requests; a bad file keeps the running one and says why")
    func reload() async throws {
        let origin = try OriginServer { _ in .ok("hello", cacheControl: "max-age=60") }
        let larder = try await Daemon.start(config: #"{"connectPorts": [443]}"#)
        let path = try #require(larder.configPath)
        let kept = try await RawClient.connect(port: larder.port)

        try #"{"connectPorts": [443], "allow": ["10.0.0.0/8"]}"#.write(toFile: path, atomically: true, encoding: .utf8)
        larder.signal(SIGHUP)
        try await larder.waitForLog(containing: "msg=reloaded")
        #expect(try await Curl.get(origin.url("/a"), via: larder).status == 403)

        try #"{"connectPorts": "nope"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        larder.signal(SIGHUP)
        let line = try await larder.waitForLog(containing: "reload failed")
        #expect(line.contains("connectPorts"))
        // Still the last good config: clients from 127.0.0.1 remain refused.
        #expect(try await Curl.get(origin.url("/a"), via: larder).status == 403)

        try #"{}"#.write(toFile: path, atomically: true, encoding: .utf8)
        larder.signal(SIGHUP)
        try await larder.waitForLog(containing: "msg=reloaded", occurrence: 2)
        #expect(try await Curl.get(origin.url("/a"), via: larder).status == 200)
        // A connection opened before the reloads still works: nothing was dropped.
        try await kept.send("GET /_larder/health HTTP/1.1\r\nHost: larder\r\n\r\n")
        #expect(try await kept.readResponse().status == 200)
    }

    @Test("larder stats, ls and purge talk to the running daemon")
    func cliCommands() async throws {
        let origin = try OriginServer { request in .ok("body of \(request.path)", cacheControl: "max-age=600") }
        let larder = try await Daemon.start(config: "{}")
        for path in ["/one", "/two", "/one"] { _ = try await Curl.get(origin.url(path), via: larder) }
        let server = "127.0.0.1:\(larder.port)"

        let stats = try run(["stats", "--server", server])
        #expect(stats.status == 0, "\(stats.output)")
        #expect(stats.output.contains("entries"))
        #expect(stats.output.contains("(all)"))
        let json = try run(["stats", "--json", "--server", server])
        let decoded = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        let requests = try #require(decoded?["requests"] as? [String: Any])
        #expect(requests["hit"] as? Int == 1)
        #expect(requests["miss"] as? Int == 2)

        let listing = try run(["ls", "--server", server])
        #expect(listing.output.contains(origin.url("/one")))
        #expect(listing.output.contains(origin.url("/two")))
        #expect(listing.output.contains("fresh"))

        let purge = try run(["purge", origin.url("/one"), "--server", server])
        #expect(purge.output.contains("purged 1"))
        #expect(try await Curl.get(origin.url("/one"), via: larder).xCache == "MISS")
        #expect(try run(["purge", "--all", "--server", server]).output.contains("purged 2"))
        #expect(try await Curl.get(origin.url("/two"), via: larder).xCache == "MISS")

        let refused = try run(["stats", "--server", "127.0.0.1:1"])
        #expect(refused.status != 0)
        #expect(refused.output.contains("no Larder answers"))
    }

    @Test("every command has --help")
    func help() throws {
        for command in [[], ["serve"], ["check-config"], ["stats"], ["purge"], ["ls"], ["version"]] {
            let result = try run(command + ["--help"])
            #expect(result.status == 0)
            #expect(result.output.contains("USAGE"), "\(command)")
        }
        #expect(try run(["version"]).output.hasPrefix("larder "))
    }

    @Test("/_larder/metrics is Prometheus text whose counters move with traffic")
    func metrics() async throws {
        let origin = try OriginServer { _ in .ok("m", cacheControl: "max-age=600") }
        let larder = try await Daemon.start(config: "{}")
        let metricsURL = "http://127.0.0.1:\(larder.port)/_larder/metrics"
        _ = try await Curl.get(origin.url("/m"), via: larder)
        _ = try await Curl.get(origin.url("/m"), via: larder)
        let first = try await Curl.get(metricsURL, via: nil)
        #expect(first.header("Content-Type")?.hasPrefix("text/plain") == true)
        let samples = try PrometheusText.parse(first.bodyText)
        #expect(samples[#"larder_requests_total{cache_status="HIT",route="default"}"#] == 1)
        #expect(samples[#"larder_requests_total{cache_status="MISS",route="default"}"#] == 1)
        #expect(samples["larder_upstream_response_seconds_count"] == 1)
        #expect((samples[#"larder_store_entries{tier="disk"}"#] ?? 0) >= 1)
        _ = try await Curl.get(origin.url("/m"), via: larder)
        let second = try PrometheusText.parse(try await Curl.get(metricsURL, via: nil).bodyText)
        #expect(second[#"larder_requests_total{cache_status="HIT",route="default"}"#] == 2)
        #expect(second[#"larder_bytes_served_total{source="cache"}"#] == 2)
    }

    @Test("systemd-analyze verify accepts the shipped units")
    func unitFilesVerify() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            print("skipped: systemd-analyze is not installed")
            return
        }
        let directory = try TemporaryDirectory(prefix: "larder-units")
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // The unit names /usr/local/bin/larder, which need not exist here: point it at the built binary.
        let unit = try String(contentsOf: repository.appendingPathComponent("systemd/larder.service"), encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/larder", with: try Daemon.binaryPath())
        try unit.write(toFile: directory.path("larder.service"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            atPath: repository.appendingPathComponent("systemd/larder.socket").path, toPath: directory.path("larder.socket"))
        let result = try runProcess("/usr/bin/systemd-analyze", ["verify", directory.path("larder.service"), directory.path("larder.socket")])
        #expect(result.status == 0, "\(result.output)")
        #expect(!result.output.contains("larder.service:"), "\(result.output)")
    }

    // MARK: Helpers

    private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try runProcess(try Daemon.binaryPath(), arguments)
    }

    private func runProcess(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LARDER_CONFIG"] = "/nonexistent/larder.json"
        environment.removeValue(forKey: "NOTIFY_SOCKET")
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}

/// Reads Prometheus text exposition: `name{labels} value` lines, comments skipped; throws on a
/// line that is neither, so malformed output fails the test.
enum PrometheusText {
    static func parse(_ text: String) throws -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.isEmpty {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                throw HarnessError.malformed("not a Prometheus sample line: \(line)")
            }
            samples[String(line[..<space])] = value
        }
        return samples
    }
}
