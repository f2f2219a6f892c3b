import ReplayQueue
import Testing

@Suite("Dead letters")
struct DeadLetterTests {
    @Test(
        "a request sent maxAttempts times without an answer is dead-lettered with its last error; the origin moves on")
    func maxAttemptsDeadLetters() async throws {
        let harness = QueueHarness(settings: QueueSettings(maxAttempts: 3, backoffBase: 5, backoffMax: 20))
        defer { harness.close() }
        let origin = try OriginServer(.down)
        defer { origin.stop() }
        let queue = try harness.open()
        let first = try queue.post(origin, "/a", body: "first")
        let second = try queue.post(origin, "/a", body: "second")
        queue.start()

        // The second is tried only once the first is given up on, and is given up on in turn.
        try await Poll.until("both dead-lettered") { queue.depthByOrigin()[origin.origin] == OriginDepth(dead: 2) }
        for (request, body) in [(first, "first"), (second, "second")] {
            let dead = try #require(queue.request(request.id))
            #expect(dead.state == .dead(reason: "no answer after 3 attempts"))
            #expect(dead.attempts == 3)
            #expect(dead.lastError?.hasPrefix("connection_refused: ") == true)
            #expect(dead.body == Array(body.utf8))
        }
        #expect(queue.list().map(\.id) == [first.id, second.id])
        #expect(queue.counters().deadLettered == 2)
        #expect(queue.counters().failed == 6)
        #expect(harness.log.count(.error, containing: "dead-lettered") == 2)

        // Retried dead letters get a fresh budget and go in their original order, with their original keys.
        try origin.set(.answering(200))
        #expect(queue.retry(id: nil) == 2)
        try await Poll.until("both delivered after the retry") { queue.recentDeliveries().count == 2 }
        #expect(origin.requests.map { $0.header("Idempotency-Key") } == [first.id, second.id])
        #expect(queue.recentDeliveries().map(\.attempts) == [1, 1])
        #expect(queue.list().isEmpty)
    }

    @Test("a dead letter retried by id is delivered while the requests behind it have moved on")
    func retryOneDeadLetter() async throws {
        let harness = QueueHarness(settings: QueueSettings(maxAttempts: 1, backoffBase: 5, backoffMax: 20))
        defer { harness.close() }
        let origin = try OriginServer(.down)
        defer { origin.stop() }
        let queue = try harness.open()
        let first = try queue.post(origin, "/a", body: "first")
        queue.start()
        try await Poll.until("dead-lettered") {
            queue.request(first.id)?.state == .dead(reason: "no answer after 1 attempt")
        }

        try origin.set(.answering(200))
        let second = try queue.post(origin, "/a", body: "second")
        try await Poll.until("the later one delivered past the dead letter") {
            queue.recentDeliveries().map(\.id) == [second.id]
        }
        #expect(queue.retry(id: first.id) == 1)
        try await Poll.until("the dead letter delivered after its retry") { queue.list().isEmpty }
        #expect(origin.requests.map(\.bodyText) == ["second", "first"])
        #expect(queue.retry(id: "no-such-id") == 0)
    }

    @Test("a request waiting longer than maxAge is dead-lettered before it is sent; the next one goes")
    func maxAgeDeadLetters() async throws {
        let harness = QueueHarness(settings: QueueSettings(maxAgeSeconds: 60, backoffBase: 5, backoffMax: 20))
        defer { harness.close() }
        let origin = try OriginServer(.answering(200))
        defer { origin.stop() }
        let queue = try harness.open()
        let old = try queue.post(origin, "/a", body: "old")
        harness.clock.advance(milliseconds: 60_001)
        let fresh = try queue.post(origin, "/a", body: "fresh")
        queue.start()

        try await Poll.until("the fresh one delivered") { queue.recentDeliveries().map(\.id) == [fresh.id] }
        #expect(queue.request(old.id)?.state == .dead(reason: "queued longer than 60 s"))
        #expect(queue.request(old.id)?.attempts == 0)
        #expect(origin.requests.map(\.bodyText) == ["fresh"])
    }
}
