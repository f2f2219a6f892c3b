import HTTPWire
import Logging
import Upstream

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The offline queue: unsafe requests whose origin could not be reached, kept in a SQLite file in `STATE_DIR` and
/// replayed to their origin in arrival order, at least once, with an `Idempotency-Key`.
///
/// The rules (issue 5), and the choices where the issue leaves one:
/// - Per origin (`scheme://host:port`), one request is in flight at a time and only the earliest one that is not
///   dead is sent, so a later request never overtakes an earlier one. Origins are independent.
/// - A new request is first sent one `backoffBase` after it was queued (it was queued because the origin had just
///   failed). After a send with no answer, the next waits `backoffBase × 2^(failures − 1)`, capped at `backoffMax`,
///   less up to 10% jitter.
/// - Any answer but 401/403 delivers the request: its status is recorded in the delivery log and the row deleted, in
///   one transaction. A crash before that commits leaves it queued, to be sent again with the same key.
/// - A 401/403 holds the origin: that request and every later one (arriving ones too) wait, `held`, for `retry`.
/// - A request sent `maxAttempts` times without an answer, or waiting longer than `maxAgeSeconds`, is dead-lettered
///   and its origin moves on to the next one: one poisoned request must not block an origin forever, and the
///   operator sees it in the list. Addresses Larder refuses to connect to (prohibited, itself) are dead at once.
/// - `retry` gives held and dead requests a fresh budget (no attempts, age counted from the retry).
/// - Start one replayer per file: the file is not locked, and two replayers would both send.
public final class ReplayQueue: Sendable {
    public let settings: QueueSettings
    private let database: QueueDatabase
    private let replayer: Replayer
    private let logger: Logger
    private let now: @Sendable () -> Int64

    /// Opens (creating if needed) the queue file at `path`: mode 0600, WAL, `synchronous = FULL`.
    /// The replayer does not run until `start()`.
    /// - Parameters:
    ///   - now: milliseconds since 1970.
    ///   - timeouts: for each replayed request.
    ///   - onDelivery: called on the replayer's queue when an origin's answer delivers a request, just before the
    ///     request leaves the queue (the proxy invalidates what the write changed). A delivery that cannot be
    ///     recorded is sent and reported again.
    public init(
        path: String,
        settings: QueueSettings,
        upstream: UpstreamClient,
        logger: Logger,
        now: @escaping @Sendable () -> Int64 = ReplayQueue.wallClockMilliseconds,
        timeouts: UpstreamTimeouts = UpstreamTimeouts(),
        onDelivery: @escaping @Sendable (Delivery) -> Void = { _ in }
    ) throws {
        try StateFile.prepare(path)
        do {
            database = try QueueDatabase(path: path)
        } catch {
            throw ReplayQueueError.cannotOpen(path: path, reason: "\(error)")
        }
        self.settings = settings
        self.logger = logger
        self.now = now
        replayer = Replayer(
            database: database, upstream: upstream, settings: settings, timeouts: timeouts, logger: logger, now: now,
            onDelivery: onDelivery)
    }

    deinit {
        replayer.stop()
    }

    /// Milliseconds since 1970, from the system clock.
    @Sendable
    public static func wallClockMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Durably stores the request (synced to disk before returning) behind every earlier one to its origin, and
    /// returns it with its 1-based position in its origin's queue. Hop-by-hop fields, `Host`, `Content-Length` and
    /// `Expect` are not kept.
    public func enqueue(
        method: String, url: AbsoluteURL, headers: HTTPHeaders, body: [UInt8], route: String
    ) throws -> (request: QueuedRequest, position: Int) {
        guard body.count <= settings.maxBodySize else {
            throw ReplayQueueError.bodyTooLarge(bytes: body.count, limit: settings.maxBodySize)
        }
        let now = now()
        let request = QueuedRequest(
            id: UUID().uuidString.lowercased(), origin: url.queueOrigin, method: method, url: url.description,
            headers: headers.replayable, body: body, route: route, enqueuedAt: now,
            nextAttemptAt: ReplayPolicy.firstAttempt(queuedAt: now, settings: settings))
        let stored: (request: QueuedRequest, position: Int)
        do {
            stored = try database.insert(request)
        } catch {
            throw ReplayQueueError.storageFailed(reason: "\(error)")
        }
        logger.debug(
            "queued a request for replay",
            metadata: [
                "id": "\(request.id)", "origin": "\(request.origin)", "method": "\(method)", "url": "\(request.url)",
                "position": "\(stored.position)",
            ])
        replayer.wake(request.origin)
        return stored
    }

    /// Starts the replayer on its own queue: every pending request is resumed, including any that was in flight
    /// when the process last stopped.
    public func start() {
        replayer.start()
    }

    /// Stops the replayer; attempts in flight are abandoned and their requests stay queued.
    public func stop() {
        replayer.stop()
    }

    /// Every pending, held and dead request, in arrival order.
    public func list() -> [QueuedRequest] {
        read("list the queue", default: []) { try database.all().map(\.request) }
    }

    /// Makes requests due now: with an id, that request (a held one releases its whole origin; a pending one brings
    /// the earlier requests of its origin along); with nil, every held, dead and backed-off request. Held and dead
    /// requests become pending with their attempts reset. Returns how many requests changed.
    @discardableResult
    public func retry(id: String?) -> Int {
        let result = read("retry queued requests", default: (count: 0, origins: Set<String>())) {
            try database.retry(id: id, now: now())
        }
        if result.count > 0 {
            logger.notice("queued requests retried", metadata: ["count": "\(result.count)", "id": "\(id ?? "all")"])
        }
        for origin in result.origins {
            replayer.wake(origin)
        }
        return result.count
    }

    /// Removes a request, whatever its state; false when there is none with that id. An attempt already in flight
    /// is not recalled. Dropping a held request does not release the requests behind it: `retry` does.
    @discardableResult
    public func drop(id: String) -> Bool {
        guard let origin = read("drop a queued request", default: nil, { try database.drop(id: id) }) else {
            return false
        }
        logger.notice("dropped a queued request", metadata: ["id": "\(id)", "origin": "\(origin)"])
        replayer.wake(origin)
        return true
    }

    /// Whether the URL's origin has pending or held requests, which a request sent to it now would overtake. False
    /// when the queue cannot be read (the request is then sent, as without a queue).
    public func hasWaitingRequests(for url: AbsoluteURL) -> Bool {
        read("look for waiting requests", default: false) { try database.hasWaitingRequests(for: url.queueOrigin) }
    }

    /// Requests in the queue per origin, by state; origins with none are absent.
    public func depthByOrigin() -> [String: OriginDepth] {
        read("count the queue", default: [:]) { try database.depthByOrigin() }
    }

    /// Deliveries, failed attempts, dead letters and holds since this queue was created.
    public func counters() -> ReplayCounters {
        replayer.counters.withLock { $0 }
    }

    /// The last `limit` requests that left the queue because their origin answered, oldest first, with the status.
    /// The log keeps the last 1000.
    public func recentDeliveries(limit: Int = 100) -> [Delivery] {
        read("read the delivery log", default: []) { try database.deliveries(limit: limit) }
    }

    /// Sends the origin's first pending request now, whatever its back-off (the proxy just saw the origin answer).
    /// A held origin stays held.
    /// Cheap when nothing is queued, as for nearly every call: no SQLite read, not even the origin's name.
    public func nudge(originOf url: AbsoluteURL) {
        guard replayer.mayHavePending else { return }
        replayer.nudge(url.queueOrigin)
    }

    /// Runs a read for the admin API, which answers with what it can: a failure is logged and `fallback` returned.
    private func read<T>(_ what: String, default fallback: T, _ body: () throws -> T) -> T {
        do {
            return try body()
        } catch {
            logger.error("cannot \(what)", metadata: ["error": "\(error)"])
            return fallback
        }
    }
}
