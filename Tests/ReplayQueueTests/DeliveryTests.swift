import HTTPWire
import ReplayQueue
import Testing

@Suite("Delivering queued requests to a real origin")
struct DeliveryTests {
    @Test(
        "requests queued while the origin is down are delivered once it is up: in order, each once, with body and key")
    func deliveredInOrderOnceUp() async throws {
        let harness = QueueHarness()
        defer { harness.close() }
        let origin = try OriginServer(.down)
        defer { origin.stop() }
        let queue = try harness.open()
        let first = try queue.post(origin, "/orders", body: "one")
        let second = try queue.post(origin, "/orders", body: "two")
        let third = try queue.post(origin, "/orders?x=1", body: "three")
        queue.start()

        try await Poll.until("the first request to fail several times") {
            (queue.request(first.id)?.attempts ?? 0) >= 4
        }
        // One in flight per origin: the later requests wait behind the first and are never tried.
        #expect(queue.request(second.id)?.attempts == 0)
        #expect(queue.request(third.id)?.attempts == 0)
        #expect(queue.request(first.id)?.lastError?.hasPrefix("connection_refused") == true)
        #expect(queue.recentDeliveries().isEmpty)

        try origin.set(.answering(200))
        try await Poll.until("all three delivered") { queue.recentDeliveries().count == 3 }

        let seen = origin.requests
        #expect(seen.map(\.method) == ["POST", "POST", "POST"])
        #expect(seen.map(\.target) == ["/orders", "/orders", "/orders?x=1"])
        #expect(seen.map(\.bodyText) == ["one", "two", "three"])
        #expect(seen.map { $0.header("Idempotency-Key") } == [first.id, second.id, third.id])
        #expect(seen.allSatisfy { $0.header("Content-Type") == "text/plain" && $0.count(of: "Idempotency-Key") == 1 })
        #expect(queue.recentDeliveries().map(\.id) == [first.id, second.id, third.id])
        #expect(queue.recentDeliveries().map(\.status) == [200, 200, 200])
        #expect(queue.list().isEmpty)
    }

    @Test("a streak of failed attempts is logged once, and so is the recovery; the delivery once")
    func failureStreakLoggedOnce() async throws {
        let harness = QueueHarness()
        defer { harness.close() }
        let origin = try OriginServer(.down)
        defer { origin.stop() }
        let queue = try harness.open()
        let request = try queue.post(origin, "/a", body: "x")
        queue.start()
        try await Poll.until("several failed attempts") { (queue.request(request.id)?.attempts ?? 0) >= 5 }
        try origin.set(.answering(201))
        try await Poll.until("delivered") { queue.recentDeliveries().count == 1 }

        #expect(harness.log.count(.warning, containing: "cannot reach") == 1)
        #expect(harness.log.count(.debug, containing: "still cannot reach") >= 3)
        #expect(harness.log.count(.notice, containing: "answers again") == 1)
        #expect(harness.log.count(.info, containing: "delivered a queued request") == 1)
        #expect(queue.counters().delivered == 1)
        #expect(queue.counters().failed >= 4)
    }

    @Test("an origin that is down does not delay another origin's requests")
    func originsAreIndependent() async throws {
        let harness = QueueHarness()
        defer { harness.close() }
        let down = try OriginServer(.down)
        defer { down.stop() }
        let up = try OriginServer(.answering(200))
        defer { up.stop() }
        let queue = try harness.open()
        let a1 = try queue.post(down, "/a", body: "a1")
        let b1 = try queue.post(up, "/b", body: "b1")
        let a2 = try queue.post(down, "/a", body: "a2")
        let b2 = try queue.post(up, "/b", body: "b2")
        queue.start()

        try await Poll.until("both of the up origin's requests delivered") { queue.recentDeliveries().count == 2 }
        try await Poll.until("the down origin tried meanwhile") { (queue.request(a1.id)?.attempts ?? 0) >= 2 }
        #expect(up.requests.map(\.bodyText) == ["b1", "b2"])
        #expect(queue.recentDeliveries().map(\.id) == [b1.id, b2.id])
        #expect(queue.list().map(\.id) == [a1.id, a2.id])
        #expect(queue.request(a2.id)?.state == .pending)
    }

    @Test(
        "any answer but 401, 403 and the try-later statuses takes the request out of the queue, and its status is recorded",
        arguments: [200, 201, 204, 404, 409, 500])
    func anyAnswerDelivers(status: Int) async throws {
        let harness = QueueHarness()
        defer { harness.close() }
        let origin = try OriginServer(.answering(status))
        defer { origin.stop() }
        let queue = try harness.open()
        let request = try queue.post(origin, "/x", body: "payload")
        let next = try queue.post(origin, "/y", body: "next")
        queue.start()

        try await Poll.until("both delivered") { queue.recentDeliveries().count == 2 }
        let delivery = try #require(queue.recentDeliveries().first)
        #expect(delivery.id == request.id)
        #expect(delivery.status == status)
        #expect(delivery.attempts == 1)
        #expect(delivery.url == origin.url("/x"))
        #expect(queue.recentDeliveries().last?.id == next.id)
        #expect(origin.requests.count == 2)
        #expect(queue.list().isEmpty)
    }

    @Test("a client's own Idempotency-Key is replayed unchanged; hop-by-hop fields are not replayed")
    func clientFieldsOnTheWire() async throws {
        let harness = QueueHarness()
        defer { harness.close() }
        let origin = try OriginServer(.answering(200))
        defer { origin.stop() }
        let queue = try harness.open()
        let request = try queue.post(
            origin, "/pay", body: "{}",
            headers: [
                "Content-Type": "application/json", "Idempotency-Key": "client-chosen", "Connection": "X-Hop",
                "X-Hop": "1", "Proxy-Authorization": "Basic eA==", "Authorization": "Bearer token",
            ])
        #expect(request.idempotencyKey == "client-chosen")
        queue.start()

        try await Poll.until("delivered") { queue.recentDeliveries().count == 1 }
        let seen = try #require(origin.requests.first)
        #expect(seen.header("Idempotency-Key") == "client-chosen")
        #expect(seen.count(of: "Idempotency-Key") == 1)
        #expect(seen.header("Authorization") == "Bearer token")
        #expect(seen.header("X-Hop") == nil)
        #expect(seen.header("Proxy-Authorization") == nil)
        #expect(seen.header("Host") == "127.0.0.1:\(origin.port)")
        #expect(seen.header("Content-Length") == "2")
    }
}
