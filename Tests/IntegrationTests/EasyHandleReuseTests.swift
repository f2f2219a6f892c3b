import Foundation
import Testing

/// Larder reuses libcurl easy handles from one origin request to the next, setting every per-request option each
/// time: nothing of an earlier request may reach the origin with a later one.
@Suite("Easy handle reuse")
struct EasyHandleReuseTests {
    @Test("after a PUT with a body and extra fields, plain GETs reach the origin as sent, with nothing carried over")
    func nothingCarriesOver() async throws {
        let origin = try OriginServer { request in
            OriginResponse(status: 200, headers: [("Cache-Control", "no-store")], body: .bytes(Array("ok".utf8)))
        }
        let larder = try await Daemon.start()
        // One request at a time, so each handle a request frees is the one the next takes.
        let put = try await Curl.run(
            ["-X", "PUT", "--data-binary", "first body", "-H", "X-First: 1", "-H", "Accept: text/first",
             "-H", "Expect:", origin.url("/first")],
            via: larder)
        #expect(put.exitCode == 0, "curl: \(put.stderr)")
        for index in 0..<3 {
            let get = try await Curl.run(["-H", "X-Later: \(index)", origin.url("/later/\(index)")], via: larder)
            #expect(get.exitCode == 0, "curl: \(get.stderr)")
            #expect(get.bodyText == "ok")
        }
        let seen = origin.requests
        #expect(seen.count == 4)
        #expect(seen.first?.method == "PUT")
        #expect(seen.first?.bodyText == "first body")
        for (index, request) in seen.dropFirst().enumerated() {
            #expect(request.method == "GET")
            #expect(request.target == "/later/\(index)")
            #expect(request.body.isEmpty)
            #expect(request.header("Content-Length") == nil)
            #expect(request.header("Transfer-Encoding") == nil)
            #expect(request.header("X-First") == nil)
            #expect(request.headers("X-Later") == ["\(index)"])
            // The curl client's own default, not the PUT's.
            #expect(request.headers("Accept") == ["*/*"])
        }
    }

    @Test("after HEADs, DELETEs and POSTs, GETs are GETs again, and their bodies arrive")
    func methodsDoNotCarryOver() async throws {
        let origin = try OriginServer { request in
            OriginResponse(
                status: 200, headers: [("Cache-Control", "no-store")], body: .bytes(Array("\(request.method) body".utf8)))
        }
        let larder = try await Daemon.start()
        // Clients are dealt to the lanes in turn, and each lane has its own handles: one round per lane gives every
        // lane's handle each method before the GETs.
        let lanes = ProcessInfo.processInfo.activeProcessorCount
        for arguments in [["-I"], ["-X", "DELETE"], ["-X", "POST", "--data-binary", "posted", "-H", "Expect:"]] {
            for index in 0..<lanes {
                let result = try await Curl.run(arguments + [origin.url("/earlier/\(index)")], via: larder)
                #expect(result.exitCode == 0, "curl: \(result.stderr)")
            }
        }
        for index in 0..<lanes {
            let get = try await Curl.run([origin.url("/later/\(index)")], via: larder)
            #expect(get.bodyText == "GET body")
        }
        let later = origin.requests.filter { $0.target.hasPrefix("/later/") }
        #expect(later.count == lanes)
        for request in later {
            #expect(request.method == "GET")
            #expect(request.body.isEmpty)
            #expect(request.header("Content-Length") == nil)
        }
    }

    @Test("a transfer that failed (connection refused) leaves the next request unaffected")
    func afterFailure() async throws {
        let origin = try OriginServer { request in
            OriginResponse(status: 200, headers: [("Cache-Control", "no-store")], body: .bytes(Array(request.target.utf8)))
        }
        let larder = try await Daemon.start()
        let refused = try await Curl.run(["http://127.0.0.1:1/nothing-listens"], via: larder)
        #expect(refused.status >= 500)
        let next = try await Curl.run([origin.url("/after")], via: larder)
        #expect(next.status == 200)
        #expect(next.bodyText == "/after")
        #expect(origin.requests.map(\.target) == ["/after"])
    }
}
