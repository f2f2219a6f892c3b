import HTTPWire
import ReplayQueue
import Testing

@Suite("401 and 403 hold an origin's queue")
struct HoldTests {
    @Test(
        "a 401 or 403 holds the request and every later one to its origin until retried; nothing is dropped",
        arguments: [(401, "401 Unauthorized"), (403, "403 Forbidden")])
    func credentialsHoldUntilRetry(status: Int, reason: String) async throws {
        let harness = QueueHarness()
        defer { harness.close() }
        let origin = try OriginServer(.answering(status))
        defer { origin.stop() }
        let other = try OriginServer(.answering(200))
        defer { other.stop() }
        let queue = try harness.open()
        let ids = try ["one", "two", "three"].map { try queue.post(origin, "/w", body: $0).id }
        queue.start()

        try await Poll.until("the origin's queue held") {
            queue.pending(on: origin).map(\.state) == Array(repeating: .held(reason: reason), count: 3)
        }
        #expect(queue.request(ids[0])?.lastStatus == status)
        #expect(queue.request(ids[0])?.attempts == 1)
        #expect(queue.request(ids[1])?.attempts == 0)
        // A request arriving for a held origin waits with the others.
        let late = try queue.post(origin, "/w", body: "four")
        #expect(late.state == .held(reason: reason))
        // Nudging does not release a hold; another origin is served meanwhile.
        queue.nudge(originOf: try #require(AbsoluteURL(string: origin.url("/"))))
        try queue.post(other, "/o", body: "elsewhere")
        try await Poll.until("the other origin served") { queue.recentDeliveries().count == 1 }
        #expect(origin.requests.count == 1)
        #expect(queue.depthByOrigin()[origin.origin] == OriginDepth(held: 4))
        #expect(harness.log.count(.warning, containing: "held until retried") == 1)

        try origin.set(.answering(200))
        #expect(queue.retry(id: nil) == 4)
        try await Poll.until("all four delivered") { queue.recentDeliveries().count == 5 }
        let seen = origin.requests
        #expect(seen.map(\.bodyText) == ["one", "one", "two", "three", "four"])
        // The refused request went again with the same key.
        #expect(seen.map { $0.header("Idempotency-Key") } == [ids[0]] + ids + [late.id])
        #expect(queue.recentDeliveries().dropFirst().map(\.status) == [200, 200, 200, 200])
        #expect(queue.list().isEmpty)
    }

    @Test("retrying any held request by id releases its whole origin, in order")
    func retryByIDReleasesOrigin() async throws {
        let harness = QueueHarness()
        defer { harness.close() }
        let origin = try OriginServer(.answering(401))
        defer { origin.stop() }
        let queue = try harness.open()
        let first = try queue.post(origin, "/w", body: "one")
        let second = try queue.post(origin, "/w", body: "two")
        queue.start()
        try await Poll.until("held") { queue.request(second.id)?.state == .held(reason: "401 Unauthorized") }

        try origin.set(.answering(204))
        #expect(queue.retry(id: second.id) == 2)
        try await Poll.until("both delivered") { queue.recentDeliveries().count == 2 }
        #expect(queue.recentDeliveries().map(\.id) == [first.id, second.id])
        #expect(queue.recentDeliveries().map(\.status) == [204, 204])
    }
}
