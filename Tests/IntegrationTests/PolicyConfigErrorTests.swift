import Foundation
import Glibc
import Testing

/// Config errors, by their messages: `larder check-config` prints every problem with its JSON path and a reason a
/// person can act on, and exits 78; the daemon refuses to start on a bad file (78), and a bad reload keeps the
/// running routes.
@Suite("Policy: config errors")
struct PolicyConfigErrorTests {
    /// A route file with one problem, where it is, and words its reason must contain.
    @Test(
        "check-config names the JSON path and the reason of each problem, and exits 78",
        arguments: [
            (#"{"routes": [{"name": "a", "match": {"path": "/"}, "policy": "cache-first", "tll": "5m"}]}"#,
             "$.routes[0].tll", #"did you mean "ttl""#),
            (#"{"routes": [{"name": "a", "match": {"path": "/"}, "policy": "cache-first", "ttl": "5m"}], "defaults": {"errorBackof": "1s"}}"#,
             "$.defaults.errorBackof", #"did you mean "errorBackoff""#),
            (#"{"routes": [{"name": "a", "match": {"path": "/", "hots": "x.test"}, "policy": "standard"}]}"#,
             "$.routes[0].match.hots", #"did you mean "host""#),
            (#"{"routes": [{"name": "a", "match": {"path": "/"}, "policy": "cache-frist", "ttl": "5m"}]}"#,
             "$.routes[0].policy", #"did you mean "cache-first""#),
            (#"{"routes": [{"name": "a", "match": {"path": "/"}, "policy": "cache-first"}]}"#,
             "$.routes[0].ttl", "required"),
            (#"{"routes": [{"name": "a", "match": {"path": "/"}, "policy": "stale-while-revalidate", "ttl": "1m"}]}"#,
             "$.routes[0].maxStale", "required"),
            (#"{"routes": [{"name": "a", "match": {"path": "/"}, "policy": "cache-first", "ttl": "5 minutes"}]}"#,
             "$.routes[0].ttl", "not a duration"),
            (#"{"routes": [{"name": "a", "match": {}, "policy": "standard"}]}"#,
             "$.routes[0].match", "at least one"),
            (#"{"routes": [{"name": "a", "match": {"path": "/"}}, {"name": "a", "match": {"path": "/b"}}]}"#,
             "$.routes[1].name", "unique"),
            (#"{"routes": [{"name": "a", "match": {"methods": ["GET"]}, "policy": "cache-first", "ttl": "1m", "key": {"body": true}}]}"#,
             "$.routes[0].key.body", "POST"),
            (#"{"routes": [{"name": "a", "match": {"path": "/"}, "policy": "cache-first", "ttl": "1m", "storeIf": {"json": {"code": 0}}}]}"#,
             "$.routes[0].storeIf.json", "JSON Pointer"),
            (#"{"routes": [{"name": "a", "match": {"path": "/"}, "policy": "cache-first", "ttl": "1m", "storeIf": {"status": [206]}}]}"#,
             "$.routes[0].storeIf.status[0]", "never stored"),
            (#"{"routes": [{"name": "a", "match": {"host": "example.test:80"}}]}"#,
             "$.routes[0].match.host", "port"),
            (#"{"routes": [{"name": "default", "match": {"path": "/"}}]}"#,
             "$.routes[0].name", "default"),
            (#"{"routes": [{"name": "a", "match": {"path": "/"}, "policy": "cache-first", "ttl": "1m"}"#,
             "$", "not valid JSON at line 1, column 88: the file ends inside an array"),
            (#"{"routes": [{"name": "a", "match": {"path": "/"}}]"# + "\n" + #"  "log": {}}"#,
             "$", "not valid JSON at line 2, column 3: expected \",\" or \"}\""),
            (#"{"routes": [{"name": "a", "match": {"path": "/"}, "policy": "cache-first", "ttl": "1m", "ttl": "1h"}]}"#,
             "$.routes[0].ttl", "appears more than once"),
        ]
    )
    func checkConfig(text: String, path: String, reason: String) async throws {
        let result = try await Self.larder(["check-config"], configText: text)
        #expect(result.status == 78, "\(result.output)")
        let line = result.output.split(separator: "\n").first { $0.hasPrefix(path) }
        #expect(line?.contains(reason) == true, "\(result.output)")
        #expect(!result.output.contains("ok\n"))
    }

    @Test("check-config reports every problem at once, one per line")
    func everyProblem() async throws {
        let text = #"""
            {"routes": [
              {"name": "a", "match": {"path": "/"}, "policy": "cache-first", "tll": "5m"},
              {"name": "a", "match": {"path": "/b"}, "policy": "network-firts"}
            ], "timeouts": {"read": "soon"}}
            """#
        let result = try await Self.larder(["check-config"], configText: text)
        #expect(result.status == 78)
        for path in ["$.routes[0].ttl", "$.routes[0].tll", "$.routes[1].name", "$.routes[1].policy", "$.timeouts.read"] {
            #expect(result.output.contains(path + ":"), "\(path) in \(result.output)")
        }
    }

    @Test("check-config passes the shipped config and every example, and warns about a network-first route without staleIfError")
    func shippedFiles() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let examples = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("config/examples").path)
            .filter { $0.hasSuffix(".json") }.map { "config/examples/\($0)" }
        #expect(!examples.isEmpty)
        for file in ["config/larder.json"] + examples {
            let result = try await Self.larder(["check-config", root.appendingPathComponent(file).path])
            #expect(result.status == 0, "\(file): \(result.output)")
            #expect(result.output.hasSuffix("ok\n"), "\(file): \(result.output)")
        }
        let warned = try await Self.larder(
            ["check-config"], configText: PolicyConfig.everything(#""policy": "network-first""#))
        #expect(warned.status == 0)
        #expect(warned.output.contains("warning: $.routes[0].staleIfError"))
    }

    @Test("the daemon refuses to start on a bad config: exit 78, and its log says where and why")
    func daemonRefuses() async throws {
        do {
            let larder = try await Daemon.start(
                config: PolicyConfig.everything(#""policy": "cache-first", "tll": "5m""#))
            Issue.record("larder started on a bad config, on port \(larder.port)")
        } catch HarnessError.daemonExited(let status, let log) {
            #expect(status == 78)
            #expect(log.contains("$.routes[0].tll"), "\(log)")
            #expect(log.contains(#"did you mean "ttl""#), "\(log)")
        }
    }

    @Test("a reload with bad routes keeps the running routes and logs why; a good one replaces them")
    func badReloadKeepsRoutes() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(config: PolicyConfig.everything(#""policy": "cache-first", "ttl": "1h""#))
        let path = try #require(larder.configPath)
        let url = origin.url("/kept")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")

        try PolicyConfig.everything(#""policy": "network-only", "ttl": "soon""#)
            .write(toFile: path, atomically: true, encoding: .utf8)
        larder.signal(SIGHUP)
        let failure = try await larder.waitForLog(containing: "reload failed")
        #expect(failure.contains("routes[0].ttl"), "\(failure)")
        #expect(try await Curl.get(url, via: larder).xCache == "HIT")

        try PolicyConfig.everything(#""policy": "network-only""#).write(toFile: path, atomically: true, encoding: .utf8)
        larder.signal(SIGHUP)
        try await larder.waitForLog(containing: "msg=reloaded")
        #expect(try await Curl.get(url, via: larder).xCache == "BYPASS")
    }

    /// Runs `larder <arguments> [config file]`: with `configText`, the text is written to a file whose path is
    /// appended. Returns the exit status and stdout and stderr together.
    static func larder(_ arguments: [String], configText: String? = nil) async throws -> (status: Int32, output: String) {
        let directory = try TemporaryDirectory(prefix: "larder-check")
        var arguments = arguments
        if let configText {
            let file = directory.path("larder.json")
            try configText.write(toFile: file, atomically: true, encoding: .utf8)
            arguments.append(file)
        }
        let output = directory.path("output")
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LARDER_") }
        environment["LARDER_CONFIG"] = "/nonexistent/larder.json"
        environment.removeValue(forKey: "NOTIFY_SOCKET")
        let process = try ChildProcess(
            executable: try Daemon.binaryPath(), arguments: arguments, environment: environment, stdout: output,
            stderr: output)
        let status = try await process.waitForExit(timeout: .seconds(30))
        return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }
}
