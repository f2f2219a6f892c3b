import HTTPWire
import ReplayQueue
import Testing

@Suite("Operating the queue")
struct AdminTests {
    /// A back-off long enough that nothing is sent unless a test makes it due.
    static let patient = QueueSettings(maxAttempts: 5, backoffBase: 60_000, backoffMax: 60_000)

    @Test("drop removes a request by id; it is never sent, and the ones behind it are")
    func dropByID() async throws {
        let harness = QueueHarness()
        defer { harness.close() }
        let origin = try OriginServer(.down)
        defer { origin.stop() }
        let queue = try harness.open()
        let first = try queue.post(origin, "/a", body: "first")
        let second = try queue.post(origin, "/a", body: "second")
        #expect(queue.drop(id: first.id))
        #expect(!queue.drop(id: first.id))
        #expect(!queue.drop(id: "no-such-id"))
        #expect(queue.list().map(\.id) == [second.id])

        try origin.set(.answering(200))
        queue.start()
        try await Poll.until("the remaining one delivered") { queue.recentDeliveries().count == 1 }
        #expect(origin.requests.map(\.bodyText) == ["second"])
    }

    @Test("retry makes a backed-off request due now")
    func retryMakesDue() async throws {
        let harness = QueueHarness(settings: Self.patient)
        defer { harness.close() }
        let origin = try OriginServer(.answering(200))
        defer { origin.stop() }
        let queue = try harness.open()
        let request = try queue.post(origin, "/a", body: "x")
        queue.start()
        #expect(queue.request(request.id)?.nextAttemptAt ?? 0 > harness.clock.now + 50_000)

        #expect(queue.retry(id: nil) == 1)
        try await Poll.until("delivered") { queue.recentDeliveries().count == 1 }
        #expect(queue.retry(id: nil) == 0)
    }

    @Test("nudge sends an origin's first request now, whatever its back-off")
    func nudgeSendsNow() async throws {
        let harness = QueueHarness(settings: Self.patient)
        defer { harness.close() }
        let origin = try OriginServer(.answering(200))
        defer { origin.stop() }
        let queue = try harness.open()
        try queue.post(origin, "/a", body: "one")
        try queue.post(origin, "/a", body: "two")
        queue.start()
        queue.nudge(originOf: try #require(AbsoluteURL(string: origin.url("/"))))
        // A delivery shows the origin answers, so the requests behind it need not wait either.
        try await Poll.until("delivered") { queue.recentDeliveries().count >= 1 }
        #expect(origin.requests.first?.bodyText == "one")
    }

    @Test("depth per origin counts pending, held and dead requests; counters count what happened since start")
    func depthAndCounters() async throws {
        let harness = QueueHarness(settings: QueueSettings(maxAttempts: 1, backoffBase: 5, backoffMax: 20))
        defer { harness.close() }
        let refusing = try OriginServer(.answering(401))
        defer { refusing.stop() }
        let down = try OriginServer(.down)
        defer { down.stop() }
        let silent = try OriginServer(.silent)
        defer { silent.stop() }
        let up = try OriginServer(.answering(200))
        defer { up.stop() }
        let queue = try harness.open()
        for origin in [refusing, refusing, down, down, silent, up] {
            try queue.post(origin, "/d", body: "x")
        }
        queue.start()

        let expected = [
            refusing.origin: OriginDepth(held: 2), down.origin: OriginDepth(dead: 2),
            silent.origin: OriginDepth(pending: 1),
        ]
        try await Poll.until("each origin settled") {
            queue.depthByOrigin() == expected && silent.requests.count == 1 && queue.recentDeliveries().count == 1
        }
        #expect(queue.counters() == ReplayCounters(delivered: 1, failed: 2, deadLettered: 2, held: 1))
        queue.stop()
    }

    @Test("an origin has waiting requests while one is pending or held; dead ones and other origins do not count")
    func waitingRequests() async throws {
        let harness = QueueHarness(settings: QueueSettings(maxAttempts: 1, backoffBase: 5, backoffMax: 20))
        defer { harness.close() }
        let refusing = try OriginServer(.answering(401))
        defer { refusing.stop() }
        let down = try OriginServer(.down)
        defer { down.stop() }
        let queue = try harness.open()
        // ! : the test origins' URLs are valid absolute http URLs.
        let refusingURL = AbsoluteURL(string: refusing.url("/other"))!
        let downURL = AbsoluteURL(string: down.url("/other"))!
        #expect(!queue.hasWaitingRequests(for: downURL))
        try queue.post(down, "/w", body: "x")
        try queue.post(refusing, "/w", body: "y")
        #expect(queue.hasWaitingRequests(for: downURL))
        #expect(queue.hasWaitingRequests(for: refusingURL))

        queue.start()
        try await Poll.until("one held, one dead") {
            queue.depthByOrigin() == [refusing.origin: OriginDepth(held: 1), down.origin: OriginDepth(dead: 1)]
        }
        #expect(queue.hasWaitingRequests(for: refusingURL))
        #expect(!queue.hasWaitingRequests(for: downURL))
        queue.stop()
    }
}
