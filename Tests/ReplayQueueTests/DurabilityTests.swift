import Foundation
import GRDB
import HTTPWire
import ReplayQueue
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("The queue is durable")
struct DurabilityTests {
    @Test("enqueue has committed the row when it returns: a second connection to the file sees it")
    func enqueueIsCommitted() throws {
        let harness = QueueHarness()
        defer { harness.close() }
        let origin = try OriginServer(.down)
        defer { origin.stop() }
        let queue = try harness.open()
        let request = try queue.post(origin, "/a", body: "kept")

        let other = try DatabaseQueue(path: harness.directory.queueFile)
        let row = try other.read { db in
            try Row.fetchOne(db, sql: "SELECT id, origin, method, url, body, state FROM request")
        }
        let stored = try #require(row)
        #expect(stored["id"] as String == request.id)
        #expect(stored["origin"] as String == origin.origin)
        #expect(stored["method"] as String == "POST")
        #expect(stored["url"] as String == origin.url("/a"))
        #expect(Array(stored["body"] as Data) == Array("kept".utf8))
        #expect(stored["state"] as String == "pending")
        #expect(try other.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test("the queue file is readable by its owner only, in a directory it created 0700")
    func filePermissions() throws {
        let harness = QueueHarness()
        defer { harness.close() }
        _ = try harness.open()
        var info = stat()
        #expect(stat(harness.directory.queueFile, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(stat(harness.directory.path + "/state", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
    }

    @Test("a new ReplayQueue on the same file sees the same rows in the same order, and delivers them")
    func restartKeepsAndDelivers() async throws {
        let harness = QueueHarness()
        defer { harness.close() }
        let origin = try OriginServer(.down)
        defer { origin.stop() }
        let before: [QueuedRequest]
        do {
            let queue = try harness.open()
            for body in ["one", "two", "three"] { try queue.post(origin, "/r", body: body) }
            queue.start()
            try await Poll.until("a failed attempt") { (queue.list().first?.attempts ?? 0) >= 1 }
            queue.stop()
            before = queue.list()
        }
        let queue = try harness.open()
        #expect(queue.list() == before)
        #expect(before.map(\.body) == ["one", "two", "three"].map { Array($0.utf8) })

        try origin.set(.answering(200))
        queue.start()
        try await Poll.until("all delivered after the restart") { queue.recentDeliveries().count == 3 }
        #expect(origin.requests.map(\.bodyText) == ["one", "two", "three"])
        #expect(origin.requests.map { $0.header("Idempotency-Key") } == before.map(\.id))
    }

    @Test("a request sent but never recorded (the process died mid-attempt) is sent again with the same key")
    func unrecordedAttemptIsReplayed() async throws {
        let harness = QueueHarness()
        defer { harness.close() }
        let origin = try OriginServer(.silent)
        defer { origin.stop() }
        let request: QueuedRequest
        do {
            let queue = try harness.open()
            request = try queue.post(origin, "/once", body: "charge")
            queue.start()
            try await Poll.until("the origin received it") { origin.requests.count == 1 }
            // The answer never came: what a kill -9 leaves in the file is the same, a pending row.
            queue.stop()
            #expect(queue.request(request.id)?.state == .pending)
        }
        try origin.set(.answering(200))
        let queue = try harness.open()
        queue.start()
        try await Poll.until("delivered after the restart") { queue.recentDeliveries().count == 1 }
        #expect(origin.requests.map(\.bodyText) == ["charge", "charge"])
        #expect(origin.requests.map { $0.header("Idempotency-Key") } == [request.id, request.id])
        #expect(queue.list().isEmpty)
    }

    @Test("a body over maxBodySize is refused and nothing is stored")
    func oversizedBodyRefused() throws {
        let harness = QueueHarness(settings: QueueSettings(maxBodySize: 4))
        defer { harness.close() }
        let origin = try OriginServer(.down)
        defer { origin.stop() }
        let queue = try harness.open()
        #expect(throws: ReplayQueueError.bodyTooLarge(bytes: 5, limit: 4)) {
            try queue.post(origin, "/big", body: "12345")
        }
        try queue.post(origin, "/fits", body: "1234")
        #expect(queue.list().map(\.url) == [origin.url("/fits")])
    }

    @Test("enqueue reports each request's 1-based position in its own origin's queue")
    func positionsPerOrigin() throws {
        let harness = QueueHarness()
        defer { harness.close() }
        let a = try OriginServer(.down)
        defer { a.stop() }
        let b = try OriginServer(.down)
        defer { b.stop() }
        let queue = try harness.open()
        var positions: [Int] = []
        for (origin, path) in [(a, "/1"), (a, "/2"), (b, "/1"), (a, "/3")] {
            // ! : the test origin's URL is always a valid absolute http URL.
            let url = AbsoluteURL(string: origin.url(path))!
            positions.append(try queue.enqueue(method: "PUT", url: url, headers: [:], body: [], route: "r").position)
        }
        #expect(positions == [1, 2, 1, 3])
        #expect(queue.list().map(\.method) == ["PUT", "PUT", "PUT", "PUT"])
    }
}
