import Foundation
import Testing

/// What an operator sees and steers: a 401/403 holds an origin's queue until retried, requests out of attempts are
/// dead-lettered with their last error, and any request can be dropped; through `/_larder/queue` and
/// `larder queue list|retry|drop` (issue 5).
@Suite("Offline queue: holds, dead letters and the operator")
struct QueueOperatorTests {
    /// How the operator retries.
    enum RetryBy: String, CaseIterable, Sendable {
        case endpoint = "POST /_larder/queue/retry"
        case commandLine = "larder queue retry --server"
    }

    @Test(
        "a 401 holds the origin's queue, later requests unsent, until the operator retries", arguments: RetryBy.allCases
    )
    func unauthorizedHoldsUntilRetry(by retry: RetryBy) async throws {
        let origin = try QueueOrigin()
        let larder = try await Daemon.start(config: QueueConfig.writes())
        var ids: [String] = []
        for body in ["first", "second", "third"] {
            let result = try await Curl.run(QueueConfig.write("POST", origin.url("/notes"), body: body), via: larder)
            ids.append(try QueueReceipt(result).id)
        }
        origin.answer(.status(401))
        try origin.up()
        let held = try await CachePoll.value("the origin's queue to be held", timeout: .seconds(20)) {
            let snapshot = try await QueueSnapshot.read(from: larder)
            return snapshot.requests.count == 3 && snapshot.requests.allSatisfy { $0.state == "held" } ? snapshot : nil
        }
        #expect(held.requests.map(\.id) == ids)
        #expect(held.request(ids[0])?.lastStatus == 401)
        #expect(held.request(ids[0])?.reason == "401 Unauthorized")
        #expect(held.depth?[origin.origin] == QueueSnapshot.Depth(pending: 0, held: 3, dead: 0))
        // The hold was recorded before anything else could be sent: only the first request reached the origin.
        #expect(origin.requests.map(\.bodyText) == ["first"])
        // A write that arrives now waits, held, behind them: sent at once it would overtake them.
        origin.answer(.status(200))
        let later = try await Curl.run(QueueConfig.write("POST", origin.url("/notes"), body: "fourth"), via: larder)
        #expect(later.status == 202)
        ids.append(try QueueReceipt(later).id)
        #expect(try await QueueSnapshot.read(from: larder).requests.allSatisfy { $0.state == "held" })
        #expect(origin.requests.count == 1)

        switch retry {
        case .endpoint:
            let answer = try await Curl.run(
                ["-X", "POST", "http://127.0.0.1:\(larder.port)/_larder/queue/retry"], via: nil)
            #expect(answer.status == 200)
            #expect(answer.bodyText.contains("\"retried\":4"), "\(answer.bodyText)")
        case .commandLine:
            let answer = try await QueueCommandLine.run(["retry"], against: larder)
            #expect(answer.status == 0, "\(answer.output)")
            #expect(answer.output.contains("retried 4"), "\(answer.output)")
        }
        try await CachePoll.until("all four delivered after the retry", timeout: .seconds(20)) {
            try await QueueSnapshot.read(from: larder).requests.isEmpty
        }
        let seen = origin.requests
        #expect(seen.map(\.bodyText) == ["first", "first", "second", "third", "fourth"])
        #expect(seen.map { $0.header("Idempotency-Key") } == [ids[0]] + ids)
    }

    @Test("a request out of attempts is dead-lettered with its last error, listed, and dropped by the CLI")
    func deadLetter() async throws {
        let down = try RefusingPort()
        let larder = try await Daemon.start(config: QueueConfig.writes(maxAttempts: 3))
        let receipt = try QueueReceipt(
            try await Curl.run(QueueConfig.write("POST", down.url("/never"), body: "lost?"), via: larder))
        let dead = try await CachePoll.value("the request to be dead-lettered", timeout: .seconds(20)) {
            try await QueueSnapshot.read(from: larder).request(receipt.id).flatMap { $0.state == "dead" ? $0 : nil }
        }
        #expect(dead.attempts == 3)
        #expect(dead.reason == "no answer after 3 attempts")
        #expect(dead.lastError?.hasPrefix("connection_refused") == true, "\(dead.lastError ?? "nil")")
        let snapshot = try await QueueSnapshot.read(from: larder)
        #expect(snapshot.deadLettered == 1)
        #expect(snapshot.failedAttempts == 3)
        #expect(snapshot.depth?["http://127.0.0.1:\(down.port)"] == QueueSnapshot.Depth(pending: 0, held: 0, dead: 1))

        let list = try await QueueCommandLine.run(["list"], against: larder)
        #expect(list.status == 0, "\(list.output)")
        let row = try #require(list.output.lines.first { $0.contains(receipt.id) }, "\(list.output)")
        #expect(row.contains("dead"))
        #expect(row.contains("POST \(down.url("/never"))"))
        #expect(row.contains("no answer after 3 attempts"))
        #expect(row.contains("connection_refused"), "the last error, as well as the reason: \(row)")

        let drop = try await QueueCommandLine.run(["drop", receipt.id], against: larder)
        #expect(drop.status == 0, "\(drop.output)")
        #expect(drop.output.contains("dropped \(receipt.id)"))
        #expect(try await QueueSnapshot.read(from: larder).requests.isEmpty)
        let again = try await QueueCommandLine.run(["drop", receipt.id], against: larder)
        #expect(again.status != 0)
        #expect(again.output.contains("no queued request has id"), "\(again.output)")
        withExtendedLifetime(down) {}
    }

    @Test("a dead letter retried once the origin is up is delivered")
    func deadLetterRetried() async throws {
        let origin = try QueueOrigin()
        let larder = try await Daemon.start(config: QueueConfig.writes(maxAttempts: 1))
        let receipt = try QueueReceipt(
            try await Curl.run(QueueConfig.write("POST", origin.url("/late"), body: "late"), via: larder))
        try await CachePoll.until("the request to be dead-lettered", timeout: .seconds(20)) {
            try await QueueSnapshot.read(from: larder).request(receipt.id)?.state == "dead"
        }
        try origin.up()
        let answer = try await QueueCommandLine.run(["retry", receipt.id], against: larder)
        #expect(answer.status == 0, "\(answer.output)")
        #expect(answer.output.contains("retried 1"), "\(answer.output)")
        try await CachePoll.until("the retried request delivered", timeout: .seconds(20)) {
            try await QueueSnapshot.read(from: larder).requests.isEmpty
        }
        #expect(origin.requests.map(\.bodyText) == ["late"])
        #expect(origin.requests.first?.header("Idempotency-Key") == receipt.id)
    }

    @Test("DELETE /_larder/queue/{id} drops one request, which is never sent; the others are delivered")
    func dropOne() async throws {
        let origin = try QueueOrigin()
        let larder = try await Daemon.start(config: QueueConfig.writes())
        var ids: [String] = []
        for body in ["keep 1", "drop", "keep 2"] {
            ids.append(
                try QueueReceipt(
                    try await Curl.run(QueueConfig.write("POST", origin.url("/q"), body: body), via: larder)
                ).id)
        }
        let admin = "http://127.0.0.1:\(larder.port)/_larder/queue/"
        let dropped = try await Curl.run(["-X", "DELETE", admin + ids[1]], via: nil)
        #expect(dropped.status == 200)
        #expect(dropped.bodyText.contains("\"dropped\":true"))
        let unknown = try await Curl.run(["-X", "DELETE", admin + "no-such-id"], via: nil)
        #expect(unknown.status == 404)
        #expect(try await QueueSnapshot.read(from: larder).requests.map(\.id) == [ids[0], ids[2]])

        try origin.up()
        try await CachePoll.until("the two kept requests delivered", timeout: .seconds(20)) {
            try await QueueSnapshot.read(from: larder).requests.isEmpty
        }
        #expect(origin.requests.map(\.bodyText) == ["keep 1", "keep 2"])
        #expect(origin.requests.map { $0.header("Idempotency-Key") } == [ids[0], ids[2]])
    }

    @Test("/_larder/metrics shows the queue depth per origin and the deliveries")
    func metrics() async throws {
        let origin = try QueueOrigin()
        let larder = try await Daemon.start(config: QueueConfig.writes())
        let endpoint = "http://127.0.0.1:\(larder.port)/_larder/metrics"
        for body in ["a", "b"] {
            _ = try QueueReceipt(
                try await Curl.run(QueueConfig.write("POST", origin.url("/m"), body: body), via: larder))
        }
        let depth = #"larder_queue_depth{origin="\#(origin.origin)",state="pending"}"#
        let waiting = try PrometheusText.parse(try await Curl.get(endpoint, via: nil).bodyText)
        #expect(waiting[depth] == 2)
        #expect(waiting["larder_queue_deliveries"] == 0)

        try origin.up()
        let delivered = try await CachePoll.value("the metrics to count two deliveries", timeout: .seconds(20)) {
            let samples = try PrometheusText.parse(try await Curl.get(endpoint, via: nil).bodyText)
            return samples["larder_queue_deliveries"] == 2 ? samples : nil
        }
        #expect(delivered[depth] ?? 0 == 0)
        #expect(origin.requests.count == 2)
    }

    @Test("larder queue and each of its subcommands have --help", arguments: [[], ["list"], ["retry"], ["drop"]])
    func help(subcommand: [String]) async throws {
        let result = try await QueueCommandLine.run(subcommand + ["--help"], against: nil)
        #expect(result.status == 0)
        #expect(result.output.contains("USAGE: larder queue"), "\(result.output)")
    }
}
