import Foundation
import Glibc
import Testing

/// Writes on a queue route whose origin cannot be reached are answered 202 and replayed once the origin is back:
/// in arrival order, each once, with their body and an `Idempotency-Key`, across restarts and `kill -9` (issue 5).
@Suite("Offline queue: delivery")
struct QueueDeliveryTests {
    @Test("three POSTs to a down origin are answered 202 QUEUED with id and position 1, 2, 3")
    func queuedAnswer() async throws {
        let origin = try QueueOrigin()
        let larder = try await Daemon.start(config: QueueConfig.writes())
        var receipts: [QueueReceipt] = []
        for body in ["one", "two", "three"] {
            let result = try await Curl.run(QueueConfig.write("POST", origin.url("/orders"), body: body), via: larder)
            #expect(result.status == 202)
            #expect(result.xCache == "QUEUED")
            #expect(result.header("Content-Type") == "application/json")
            let receipt = try QueueReceipt(result)
            #expect(result.header("Location") == "/_larder/queue/\(receipt.id)")
            #expect(receipt.queued)
            #expect(receipt.origin == origin.origin)
            receipts.append(receipt)
        }
        #expect(receipts.map(\.position) == [1, 2, 3])
        // The first found the origin refusing; the others were not sent ahead of it.
        #expect(
            receipts.map(\.reason) == ["connection_refused", "earlier-requests-waiting", "earlier-requests-waiting"])
        #expect(Set(receipts.map(\.id)).count == 3)
        let snapshot = try await QueueSnapshot.read(from: larder)
        #expect(snapshot.requests.map(\.id) == receipts.map(\.id))
        #expect(snapshot.requests.allSatisfy { $0.state == "pending" && $0.route == "writes" && $0.method == "POST" })
        #expect(snapshot.requests.map(\.bodyBytes) == [3, 3, 5])
        // The 202's Location shows that one request.
        let location = try await Curl.get("http://127.0.0.1:\(larder.port)/_larder/queue/\(receipts[1].id)", via: nil)
        #expect(location.status == 200)
        let shown = try JSONDecoder().decode(QueueSnapshot.Request.self, from: Data(location.body))
        #expect(shown.id == receipts[1].id)
        #expect(shown.state == "pending")
        #expect(try await Curl.get("http://127.0.0.1:\(larder.port)/_larder/queue/unknown", via: nil).status == 404)
        #expect(origin.requests.isEmpty)
    }

    @Test("once the origin is up, queued POSTs are delivered in order, each once, with body and Idempotency-Key")
    func deliveredInOrder() async throws {
        let origin = try QueueOrigin()
        let larder = try await Daemon.start(config: QueueConfig.writes())
        var ids: [String] = []
        for (path, body) in [("/orders", "one"), ("/orders", "two"), ("/orders?page=3", "three")] {
            let result = try await Curl.run(
                QueueConfig.write("POST", origin.url(path), body: body) + ["-H", "X-Client: app"], via: larder)
            ids.append(try QueueReceipt(result).id)
        }
        // The replayer tries the first request while the origin is down, and only the first.
        try await CachePoll.until("the first queued request to fail an attempt", timeout: .seconds(20)) {
            try await QueueSnapshot.read(from: larder).request(ids[0])?.attempts ?? 0 >= 1
        }
        let waiting = try await QueueSnapshot.read(from: larder)
        #expect(waiting.request(ids[0])?.lastError?.hasPrefix("connection_refused") == true)
        #expect(waiting.request(ids[1])?.attempts == 0)
        #expect(waiting.request(ids[2])?.attempts == 0)

        try origin.up()
        try await CachePoll.until("all three delivered", timeout: .seconds(20)) {
            try await QueueSnapshot.read(from: larder).requests.isEmpty
        }
        let seen = origin.requests
        #expect(seen.map(\.method) == ["POST", "POST", "POST"])
        #expect(seen.map(\.target) == ["/orders", "/orders", "/orders?page=3"])
        #expect(seen.map(\.bodyText) == ["one", "two", "three"])
        #expect(seen.map { $0.header("Idempotency-Key") } == ids)
        #expect(seen.allSatisfy { $0.headers("Idempotency-Key").count == 1 })
        #expect(seen.allSatisfy { $0.header("Content-Type") == "text/plain" && $0.header("X-Client") == "app" })
        #expect(seen.allSatisfy { $0.header("Content-Length") == "\($0.body.count)" })
        #expect(seen.allSatisfy { $0.header("Host") == "127.0.0.1:\(origin.port)" })
        // Hop-by-hop fields stay behind (RFC 9110 §7.6.1), and Larder says it passed the request on (§7.6.3).
        #expect(seen.allSatisfy { $0.header("Proxy-Connection") == nil })
        #expect(seen.allSatisfy { $0.headers("Via").contains { $0.hasSuffix("larder") } })
        let after = try await QueueSnapshot.read(from: larder)
        #expect(after.delivered == 3)
        #expect(after.depth?.isEmpty == true)
        #expect(origin.requests.count == 3)
    }

    @Test(
        "PUT, PATCH and DELETE are queued too, and replayed with their method", arguments: ["PUT", "PATCH", "DELETE"])
    func otherUnsafeMethods(method: String) async throws {
        let origin = try QueueOrigin()
        let larder = try await Daemon.start(config: QueueConfig.writes())
        let arguments =
            method == "DELETE"
            ? ["-X", "DELETE", origin.url("/items/7")] : QueueConfig.write(method, origin.url("/items/7"), body: "v2")
        let result = try await Curl.run(arguments, via: larder)
        #expect(result.xCache == "QUEUED")
        let receipt = try QueueReceipt(result)
        try origin.up()
        try await Poll.until("the \(method) delivered", timeout: .seconds(20)) { origin.requests.count == 1 }
        let seen = try #require(origin.requests.first)
        #expect(seen.method == method)
        #expect(seen.target == "/items/7")
        #expect(seen.bodyText == (method == "DELETE" ? "" : "v2"))
        #expect(seen.header("Idempotency-Key") == receipt.id)
    }

    @Test("a chunked request body is queued whole and replayed with its length")
    func chunkedBody() async throws {
        let origin = try QueueOrigin()
        let larder = try await Daemon.start(config: QueueConfig.writes())
        let body = Array(repeating: UInt8(ascii: "c"), count: 3000)
        let result = try await Curl.run(
            ["-X", "POST", "-H", "Transfer-Encoding: chunked", "--data-binary", "@-", origin.url("/upload")],
            via: larder, stdin: body)
        let receipt = try QueueReceipt(result)
        try origin.up()
        try await Poll.until("delivered", timeout: .seconds(20)) { origin.requests.count == 1 }
        let seen = try #require(origin.requests.first)
        #expect(seen.body == body)
        #expect(seen.header("Content-Length") == "3000")
        #expect(seen.header("Transfer-Encoding") == nil)
        #expect(seen.header("Idempotency-Key") == receipt.id)
    }

    @Test("a client's own Idempotency-Key is replayed as sent, not replaced or doubled")
    func clientIdempotencyKey() async throws {
        let origin = try QueueOrigin()
        let larder = try await Daemon.start(config: QueueConfig.writes())
        let arguments = QueueConfig.write("POST", origin.url("/charge"), body: "9") + ["-H", "Idempotency-Key: app-77"]
        _ = try QueueReceipt(try await Curl.run(arguments, via: larder))
        try origin.up()
        try await Poll.until("delivered", timeout: .seconds(20)) { origin.requests.count == 1 }
        #expect(origin.requests.first?.headers("Idempotency-Key") == ["app-77"])
    }

    @Test("a request answered 202 survives kill -9 and is delivered by the restarted daemon")
    func survivesKill9() async throws {
        let origin = try QueueOrigin()
        let first = try await Daemon.start(config: QueueConfig.writes())
        let result = try await Curl.run(QueueConfig.write("POST", origin.url("/pay"), body: "42 EUR"), via: first)
        let receipt = try QueueReceipt(result)
        first.kill9()
        try origin.up()

        let second = try await first.restart()
        try await CachePoll.until("the restarted daemon to deliver it", timeout: .seconds(20)) {
            try await QueueSnapshot.read(from: second).requests.isEmpty
        }
        let seen = origin.requests
        #expect(seen.count == 1)
        #expect(seen.first?.method == "POST")
        #expect(seen.first?.target == "/pay")
        #expect(seen.first?.bodyText == "42 EUR")
        #expect(seen.first?.header("Idempotency-Key") == receipt.id)
    }

    @Test("killed after sending but before recording the answer, the restarted daemon sends it again with the same key")
    func inFlightAtKillIsReplayed() async throws {
        let origin = try QueueOrigin()
        origin.answer(.stall)
        let first = try await Daemon.start(config: QueueConfig.writes())
        let receipt = try QueueReceipt(
            try await Curl.run(QueueConfig.write("POST", origin.url("/pay"), body: "once"), via: first))
        try origin.up()
        try await Poll.until("the replay to reach the stalling origin", timeout: .seconds(20)) {
            origin.requests.count == 1
        }
        first.kill9()
        origin.answer(.status(201))

        let second = try await first.restart()
        try await CachePoll.until("the restarted daemon to deliver it", timeout: .seconds(20)) {
            try await QueueSnapshot.read(from: second).requests.isEmpty
        }
        let seen = origin.requests
        #expect(seen.count == 2)
        #expect(seen.map(\.bodyText) == ["once", "once"])
        #expect(seen.map { $0.header("Idempotency-Key") } == [receipt.id, receipt.id])
    }

    @Test("the queue is a 0600 SQLite file in XDG_STATE_HOME/larder, not in the cache directory")
    func fileLocation() async throws {
        let origin = try QueueOrigin()
        let larder = try await Daemon.start(config: QueueConfig.writes())
        _ = try QueueReceipt(try await Curl.run(QueueConfig.write("POST", origin.url("/a"), body: "x"), via: larder))
        let path = larder.stateHome.appendingPathComponent("larder/queue.sqlite").path
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let header = try #require(FileHandle(forReadingAtPath: path)?.readData(ofLength: 16))
        #expect(String(decoding: header, as: UTF8.self).hasPrefix("SQLite format 3"))
        let cached = FileManager.default.enumerator(atPath: larder.cacheHome.path)?.allObjects as? [String] ?? []
        #expect(!cached.contains { $0.contains("queue") }, "\(cached)")
        // Its journal files, when present, are as private as the database.
        let siblings = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
        for name in siblings where name.hasPrefix("queue.sqlite") {
            let mode =
                try FileManager.default.attributesOfItem(
                    atPath: larder.stateHome.appendingPathComponent("larder/\(name)").path)[.posixPermissions]
                as? NSNumber
            #expect(mode?.intValue == 0o600, "\(name)")
        }
    }

    @Test("SIGTERM with requests queued exits 0, and the next start delivers them")
    func survivesSigterm() async throws {
        let origin = try QueueOrigin()
        let first = try await Daemon.start(config: QueueConfig.writes())
        let receipt = try QueueReceipt(
            try await Curl.run(QueueConfig.write("POST", origin.url("/t"), body: "kept"), via: first))
        try await CachePoll.until("a replay attempt to have failed", timeout: .seconds(20)) {
            try await QueueSnapshot.read(from: first).request(receipt.id)?.attempts ?? 0 >= 1
        }
        #expect(try await first.terminate() == 0)
        try origin.up()
        let second = try await first.restart()
        try await CachePoll.until("the restarted daemon to deliver it", timeout: .seconds(20)) {
            try await QueueSnapshot.read(from: second).requests.isEmpty
        }
        #expect(origin.requests.map(\.bodyText) == ["kept"])
        #expect(origin.requests.first?.header("Idempotency-Key") == receipt.id)
    }

    @Test("a replayed write the origin accepts invalidates the stored response for its URL (RFC 9111 §4.4)")
    func deliveryInvalidates() async throws {
        let origin = try QueueOrigin()
        try origin.up()
        let larder = try await Daemon.start(config: QueueConfig.writes())
        #expect(try await Curl.get(origin.url("/items/7"), via: larder).xCache == "MISS")
        #expect(try await Curl.get(origin.url("/items/7"), via: larder).xCache == "HIT")
        try origin.down()
        let put = try await Curl.run(QueueConfig.write("PUT", origin.url("/items/7"), body: "v2"), via: larder)
        #expect(put.xCache == "QUEUED")
        // Offline, the stored response still answers: the write has not happened yet.
        #expect(try await Curl.get(origin.url("/items/7"), via: larder).xCache == "HIT")

        try origin.up()
        try await CachePoll.until("the PUT delivered", timeout: .seconds(20)) {
            try await QueueSnapshot.read(from: larder).requests.isEmpty
        }
        let after = try await Curl.get(origin.url("/items/7"), via: larder)
        #expect(after.xCache == "MISS")
        #expect(after.originSequence == 3)
        #expect(origin.requests.map(\.method) == ["GET", "PUT", "GET"])
    }

    @Test("a write arriving while earlier ones wait for their origin is queued behind them, not sent ahead")
    func laterWriteWaitsItsTurn() async throws {
        let origin = try QueueOrigin()
        // A back-off far longer than the test: the earlier request is surely still waiting when the origin is back
        // and the later one arrives, however slow the machine. An operator's retry then sends both.
        let larder = try await Daemon.start(
            config: #"""
                {"routes": [{"name": "writes", "match": {"methods": ["POST"]}, "queue": true}],
                 "queue": {"backoffBase": "10m", "backoffMax": "10m"}}
                """#)
        let earlier = try QueueReceipt(
            try await Curl.run(QueueConfig.write("POST", origin.url("/log"), body: "create"), via: larder))
        try origin.up()
        let later = try await Curl.run(QueueConfig.write("POST", origin.url("/log"), body: "update"), via: larder)
        #expect(later.status == 202)
        #expect(later.xCache == "QUEUED")
        let receipt = try QueueReceipt(later)
        #expect(receipt.position == 2)
        #expect(receipt.reason == "earlier-requests-waiting")
        #expect(origin.requests.isEmpty)

        let retry = try await Curl.run(
            ["-X", "POST", "http://127.0.0.1:\(larder.port)/_larder/queue/retry"], via: nil)
        #expect(retry.status == 200)
        try await CachePoll.until("both delivered", timeout: .seconds(20)) {
            try await QueueSnapshot.read(from: larder).requests.isEmpty
        }
        #expect(origin.requests.map(\.bodyText) == ["create", "update"])
        #expect(origin.requests.map { $0.header("Idempotency-Key") } == [earlier.id, receipt.id])
        // Once the queue is empty, writes go straight to the origin again.
        let direct = try await Curl.run(QueueConfig.write("POST", origin.url("/log"), body: "live"), via: larder)
        #expect(direct.status == 200)
        #expect(origin.requests.count == 3)
    }
}
