import Dispatch
import Logging
import Synchronization
import Upstream

/// Sends each origin's queued requests one at a time, in arrival order, and records what came of each attempt.
/// Origins are independent: one that is down delays only its own requests.
///
/// Confinement: `running`, `lanes` and `nextToken` are touched only on `queue`; upstream events and timers hop to
/// it. That is why this class is `@unchecked Sendable`.
final class Replayer: @unchecked Sendable {
    /// One origin's replay: at most one attempt in flight, at most one timer.
    struct Lane {
        var attempt: Attempt?
        var timer: DispatchWorkItem?
        /// Whether the origin's last attempt got no answer, so that a streak of failures is logged once, with its
        /// end, rather than once per retry.
        var failing = false
    }

    /// A send in flight; `token` tells its events from those of an attempt already decided.
    struct Attempt {
        var token: UInt64
        var row: QueueRow
        var transfer: UpstreamTransfer
    }

    let queue = DispatchQueue(label: "larder.replay")
    let counters = Mutex(ReplayCounters())
    /// Origins that may have a pending request: every one that does, and perhaps a few that no longer do. `nudge`
    /// reads it so that the proxy's every successful origin answer costs a set lookup, not a SQLite query.
    private let originsWithPending = Mutex(Set<String>())
    private let database: QueueDatabase
    private let upstream: UpstreamClient
    private let settings: QueueSettings
    private let timeouts: UpstreamTimeouts
    private let logger: Logger
    private let now: @Sendable () -> Int64
    private let onDelivery: @Sendable (Delivery) -> Void

    private var running = false
    private var lanes: [String: Lane] = [:]
    private var nextToken: UInt64 = 0

    init(
        database: QueueDatabase, upstream: UpstreamClient, settings: QueueSettings, timeouts: UpstreamTimeouts,
        logger: Logger, now: @escaping @Sendable () -> Int64,
        onDelivery: @escaping @Sendable (Delivery) -> Void
    ) {
        self.onDelivery = onDelivery
        self.database = database
        self.upstream = upstream
        self.settings = settings
        self.timeouts = timeouts
        self.logger = logger
        self.now = now
    }

    // MARK: Called from any thread

    /// Resumes every origin with pending requests, including any that was in flight when the process died.
    func start() {
        queue.async { [self] in
            guard !running else { return }
            running = true
            resumeAll()
        }
    }

    /// Cancels timers and attempts in flight; their requests stay queued, to be sent again after `start`.
    func stop() {
        queue.sync {
            running = false
            for lane in lanes.values {
                lane.timer?.cancel()
                lane.attempt?.transfer.cancel()
            }
            lanes = [:]
        }
    }

    /// Looks at `origin` again (a request was queued, retried or dropped). With `ignoringBackoff`, its first
    /// request is sent now even if its back-off has not run out.
    func wake(_ origin: String, ignoringBackoff: Bool = false) {
        originsWithPending.withLock { _ = $0.insert(origin) }
        queue.async { [self] in pump(origin, ignoringBackoff: ignoringBackoff) }
    }

    /// Whether any origin may have a pending request.
    var mayHavePending: Bool { originsWithPending.withLock { !$0.isEmpty } }

    /// Sends the origin's first pending request now, whatever its back-off, if it may have one; otherwise does
    /// nothing, at the cost of a set lookup.
    func nudge(_ origin: String) {
        guard originsWithPending.withLock({ $0.contains(origin) }) else { return }
        queue.async { [self] in pump(origin, ignoringBackoff: true) }
    }

    // MARK: On `queue`

    private func resumeAll() {
        do {
            for origin in try database.originsWithPendingRequests() {
                originsWithPending.withLock { _ = $0.insert(origin) }
                pump(origin)
            }
        } catch {
            logger.error("cannot read the replay queue; trying again", metadata: ["error": "\(error)"])
            queue.asyncAfter(deadline: .now() + .milliseconds(Self.clamp(settings.backoffBase))) { [weak self] in
                guard let self, running else { return }
                resumeAll()
            }
        }
    }

    /// Sends the origin's first request if it is due, or sets a timer for when it is.
    private func pump(_ origin: String, ignoringBackoff: Bool = false) {
        guard running, lanes[origin]?.attempt == nil else { return }
        lanes[origin]?.timer?.cancel()
        lanes[origin]?.timer = nil
        do {
            while let row = try database.head(of: origin) {
                // A held origin waits for an operator's retry or drop, which wakes it.
                guard row.request.state == .pending else {
                    originsWithPending.withLock { _ = $0.remove(origin) }
                    return
                }
                // Again, in case an empty look at this origin took it out after an enqueue put it in.
                originsWithPending.withLock { _ = $0.insert(origin) }
                let now = now()
                if let reason = ReplayPolicy.expiry(
                    attempts: row.request.attempts, ageFrom: row.ageFrom, now: now, settings: settings)
                {
                    try database.deadLetter(id: row.request.id, reason: reason)
                    report(.deadLetter(reason: reason, error: nil), for: row.request)
                    continue
                }
                if ignoringBackoff || row.request.nextAttemptAt <= now {
                    send(row)
                } else {
                    schedule(origin, after: row.request.nextAttemptAt - now)
                }
                return
            }
            lanes[origin] = nil
            originsWithPending.withLock { _ = $0.remove(origin) }
        } catch {
            logger.error(
                "cannot read the replay queue; trying again", metadata: ["origin": "\(origin)", "error": "\(error)"])
            schedule(origin, after: settings.backoffBase)
        }
    }

    private func schedule(_ origin: String, after milliseconds: Int64) {
        let timer = DispatchWorkItem { [weak self] in self?.pump(origin) }
        lanes[origin, default: Lane()].timer = timer
        queue.asyncAfter(deadline: .now() + .milliseconds(Self.clamp(milliseconds)), execute: timer)
    }

    private func send(_ row: QueueRow) {
        nextToken += 1
        let token = nextToken
        let origin = row.request.origin
        let transfer = upstream.start(row.request.upstreamRequest(timeouts: timeouts)) { [weak self] event in
            switch event {
            case .head, .failed:
                guard let self else { return }
                queue.async { self.handle(event, origin: origin, token: token) }
            case .body, .end:
                // Only the status line decides; the answer's body is dropped here, on the upstream client's thread.
                return
            }
        }
        lanes[origin, default: Lane()].attempt = Attempt(token: token, row: row, transfer: transfer)
    }

    private func handle(_ event: UpstreamEvent, origin: String, token: UInt64) {
        guard running, let attempt = lanes[origin]?.attempt, attempt.token == token else { return }
        switch event {
        case .head(let head): finish(attempt, .answered(status: head.status))
        case .failed(let error): finish(attempt, .failed(error))
        case .body, .end: return
        }
    }

    /// Decides on an attempt, records the decision, and moves the origin on.
    private func finish(_ attempt: Attempt, _ outcome: AttemptOutcome) {
        let request = attempt.row.request
        let now = now()
        let verdict = ReplayPolicy.verdict(
            after: outcome, attempts: request.attempts + 1, ageFrom: attempt.row.ageFrom, now: now,
            settings: settings, jitter: Double.random(in: 0..<1))
        lanes[request.origin]?.attempt = nil
        if case .deliver(let status) = verdict {
            // Before the request leaves the queue, so that whoever sees it gone also sees what it changed. Should the
            // record fail, it is sent again and this runs again: harmless, as invalidating is.
            onDelivery(
                Delivery(
                    id: request.id, origin: request.origin, method: request.method, url: request.url,
                    route: request.route, status: status, attempts: request.attempts + 1,
                    enqueuedAt: request.enqueuedAt, deliveredAt: now))
        }
        do {
            try database.apply(verdict, to: request, now: now)
        } catch {
            // Nothing was recorded, so the request is sent again: safe with its Idempotency-Key. Waiting first keeps a
            // failing disk from turning into a loop of sends.
            logger.error(
                "cannot record a replay's outcome; the request stays queued",
                metadata: ["id": "\(request.id)", "origin": "\(request.origin)", "error": "\(error)"])
            schedule(request.origin, after: settings.backoffBase)
            return
        }
        report(verdict, for: request)
        pump(request.origin)
    }

    /// Counts and logs a recorded verdict: every delivery, hold and dead letter; a streak of failures once at its
    /// start and once at its end.
    private func report(_ verdict: AttemptVerdict, for request: QueuedRequest) {
        let origin = request.origin
        let wasFailing = lanes[origin]?.failing ?? false
        var metadata: Logger.Metadata = [
            "id": "\(request.id)", "origin": "\(origin)", "method": "\(request.method)", "url": "\(request.url)",
            "route": "\(request.route)",
        ]
        switch verdict {
        case .deliver(let status), .hold(_, let status):
            if wasFailing {
                lanes[origin]?.failing = false
                logger.notice("origin answers again; replaying its queue", metadata: ["origin": "\(origin)"])
            }
            metadata["status"] = "\(status)"
            metadata["attempts"] = "\(request.attempts + 1)"
            if case .hold(let reason, _) = verdict {
                counters.withLock { $0.held += 1 }
                metadata["reason"] = "\(reason)"
                logger.warning("origin refused the credentials; its queue is held until retried", metadata: metadata)
            } else {
                counters.withLock { $0.delivered += 1 }
                logger.info("delivered a queued request", metadata: metadata)
            }
        case .retry(let at, let error):
            counters.withLock { $0.failed += 1 }
            lanes[origin, default: Lane()].failing = true
            metadata["error"] = "\(error)"
            metadata["attempts"] = "\(request.attempts + 1)"
            metadata["retry_in_ms"] = "\(at - now())"
            if wasFailing {
                logger.debug("queued request still cannot reach its origin", metadata: metadata)
            } else {
                logger.warning("queued requests cannot reach their origin; retrying with back-off", metadata: metadata)
            }
        case .deadLetter(let reason, let error):
            counters.withLock {
                $0.deadLettered += 1
                if error != nil { $0.failed += 1 }
            }
            if error != nil { lanes[origin, default: Lane()].failing = true }
            metadata["reason"] = "\(reason)"
            metadata["error"] = "\(error ?? request.lastError ?? "none")"
            logger.error("dead-lettered a queued request", metadata: metadata)
        }
    }

    /// Milliseconds as Dispatch takes them: at least 0, at most a day.
    private static func clamp(_ milliseconds: Int64) -> Int {
        Int(min(max(milliseconds, 0), 86_400_000))
    }
}
