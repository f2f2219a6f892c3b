import GRDB
import HTTPWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The queue's SQLite file: one row per queued request in `request`, arrival order in `seq`, and the last deliveries
/// in `delivery`. Every change is one transaction, committed with `synchronous = FULL` in WAL mode, so a change is on
/// disk when the call returns.
final class QueueDatabase: Sendable {
    /// How many deliveries `delivery` keeps.
    static let deliveryLogSize = 1000

    let pool: DatabasePool

    init(path: String) throws {
        var configuration = Configuration()
        configuration.label = "larder.queue"
        // Another connection (the CLI, a test) may hold the write lock for a moment.
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            // FULL: the WAL is synced at every commit, so a request answered 202 survives power loss too.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator().migrate(pool)
    }

    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE request (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        id TEXT NOT NULL UNIQUE,
                        origin TEXT NOT NULL,
                        method TEXT NOT NULL,
                        url TEXT NOT NULL,
                        headers TEXT NOT NULL,
                        body BLOB NOT NULL,
                        route TEXT NOT NULL,
                        enqueued_at INTEGER NOT NULL,
                        age_from INTEGER NOT NULL,
                        attempts INTEGER NOT NULL,
                        next_attempt_at INTEGER NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('pending', 'held', 'dead')),
                        reason TEXT,
                        last_error TEXT,
                        last_status INTEGER
                    );
                    CREATE INDEX request_by_origin ON request(origin, seq);
                    CREATE TABLE delivery (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        id TEXT NOT NULL,
                        origin TEXT NOT NULL,
                        method TEXT NOT NULL,
                        url TEXT NOT NULL,
                        route TEXT NOT NULL,
                        status INTEGER NOT NULL,
                        attempts INTEGER NOT NULL,
                        enqueued_at INTEGER NOT NULL,
                        delivered_at INTEGER NOT NULL
                    );
                    """)
        }
        return migrator
    }

    // MARK: Reads

    private static let columns = """
        id, origin, method, url, headers, body, route, enqueued_at, attempts, next_attempt_at, last_error, \
        last_status, state, reason, age_from
        """

    /// Every request, in arrival order.
    func all() throws -> [QueueRow] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.columns) FROM request ORDER BY seq").compactMap(Self.decode)
        }
    }

    /// The earliest request of `origin` that is not dead: the only one the replayer may send.
    func head(of origin: String) throws -> QueueRow? {
        try pool.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT \(Self.columns) FROM request WHERE origin = ? AND state != 'dead' ORDER BY seq LIMIT 1
                    """,
                arguments: [origin]
            ).flatMap(Self.decode)
        }
    }

    /// Whether `origin` has a pending or held request: one a request sent now would overtake.
    func hasWaitingRequests(for origin: String) throws -> Bool {
        try pool.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM request WHERE origin = ? AND state != 'dead')",
                arguments: [origin]) ?? false
        }
    }

    /// Origins with a request waiting to be sent.
    func originsWithPendingRequests() throws -> [String] {
        try pool.read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT origin FROM request WHERE state = 'pending' ORDER BY origin")
        }
    }

    func depthByOrigin() throws -> [String: OriginDepth] {
        try pool.read { db in
            var depths: [String: OriginDepth] = [:]
            let rows = try Row.fetchAll(db, sql: "SELECT origin, state, count(*) FROM request GROUP BY origin, state")
            for row in rows {
                let origin: String = row[0]
                let state: String = row[1]
                let count: Int = row[2]
                var depth = depths[origin] ?? OriginDepth()
                switch state {
                case "pending": depth.pending = count
                case "held": depth.held = count
                default: depth.dead = count
                }
                depths[origin] = depth
            }
            return depths
        }
    }

    /// The last `limit` deliveries, oldest first.
    func deliveries(limit: Int) throws -> [Delivery] {
        try pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, origin, method, url, route, status, attempts, enqueued_at, delivered_at FROM (
                        SELECT * FROM delivery ORDER BY seq DESC LIMIT ?
                    ) ORDER BY seq
                    """,
                arguments: [limit])
            return rows.map { row in
                Delivery(
                    id: row[0], origin: row[1], method: row[2], url: row[3], route: row[4], status: row[5],
                    attempts: row[6], enqueuedAt: row[7], deliveredAt: row[8])
            }
        }
    }

    private static func decode(_ row: Row) -> QueueRow? {
        guard let headers = HeaderCodec.decode(row[4]) else { return nil }
        let body: Data = row[5]
        let stateName: String = row[12]
        let reason: String = row[13] ?? ""
        let state: QueuedRequest.State
        switch stateName {
        case "held": state = .held(reason: reason)
        case "dead": state = .dead(reason: reason)
        default: state = .pending
        }
        let request = QueuedRequest(
            id: row[0], origin: row[1], method: row[2], url: row[3], headers: headers, body: Array(body),
            route: row[6], enqueuedAt: row[7], attempts: row[8], nextAttemptAt: row[9], lastError: row[10],
            lastStatus: row[11], state: state)
        return QueueRow(request: request, ageFrom: row[14])
    }

    // MARK: Writes

    /// Stores a new request behind every other of its origin; held too when its origin is held.
    /// Returns it as stored and its 1-based position among its origin's pending and held requests.
    func insert(_ request: QueuedRequest) throws -> (request: QueuedRequest, position: Int) {
        try pool.write { db in
            var stored = request
            // The hold is on the origin: a request that arrives while it is held waits with the others.
            if let reason = try String.fetchOne(
                db, sql: "SELECT reason FROM request WHERE origin = ? AND state = 'held' ORDER BY seq LIMIT 1",
                arguments: [request.origin])
            {
                stored.state = .held(reason: reason)
            }
            let (stateName, reason) = Self.encode(stored.state)
            try db.execute(
                sql: """
                    INSERT INTO request (id, origin, method, url, headers, body, route, enqueued_at, age_from, attempts,
                        next_attempt_at, state, reason, last_error, last_status)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    stored.id, stored.origin, stored.method, stored.url, HeaderCodec.encode(stored.headers),
                    Data(stored.body), stored.route, stored.enqueuedAt, stored.enqueuedAt, stored.attempts,
                    stored.nextAttemptAt, stateName, reason, stored.lastError, stored.lastStatus,
                ])
            let position =
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM request WHERE origin = ? AND state != 'dead' AND seq <= ?",
                    arguments: [stored.origin, db.lastInsertedRowID]) ?? 1
            return (stored, position)
        }
    }

    /// Records what an attempt came to. A request dropped while in flight stays dropped; a delivery is still logged.
    func apply(_ verdict: AttemptVerdict, to request: QueuedRequest, now: Int64) throws {
        try pool.write { db in
            switch verdict {
            case .deliver(let status):
                // The answer is recorded and the request removed in one transaction: a crash before it commits
                // leaves the request queued, to be sent again with the same Idempotency-Key (at-least-once).
                try db.execute(
                    sql: """
                        INSERT INTO delivery (id, origin, method, url, route, status, attempts, enqueued_at, delivered_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        request.id, request.origin, request.method, request.url, request.route, status,
                        request.attempts + 1, request.enqueuedAt, now,
                    ])
                try db.execute(sql: "DELETE FROM request WHERE id = ?", arguments: [request.id])
                try db.execute(
                    sql: "DELETE FROM delivery WHERE seq <= (SELECT max(seq) FROM delivery) - ?",
                    arguments: [Self.deliveryLogSize])
            case .hold(let reason, let status):
                try db.execute(
                    sql: "UPDATE request SET attempts = attempts + 1, last_status = ? WHERE id = ?",
                    arguments: [status, request.id])
                try db.execute(
                    sql: "UPDATE request SET state = 'held', reason = ? WHERE origin = ? AND state = 'pending'",
                    arguments: [reason, request.origin])
            case .retry(let at, let error):
                try db.execute(
                    sql: """
                        UPDATE request SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ?
                        """,
                    arguments: [at, error, request.id])
            case .deadLetter(let reason, let error):
                try db.execute(
                    sql: """
                        UPDATE request SET attempts = attempts + 1, state = 'dead', reason = ?,
                            last_error = coalesce(?, last_error)
                        WHERE id = ?
                        """,
                    arguments: [reason, error, request.id])
            }
        }
    }

    /// Dead-letters a request before sending it (it expired while waiting).
    func deadLetter(id: String, reason: String) throws {
        try pool.write { db in
            try db.execute(
                sql: "UPDATE request SET state = 'dead', reason = ? WHERE id = ? AND state = 'pending'",
                arguments: [reason, id])
        }
    }

    /// Makes requests due at `now`: held and dead ones become pending with a fresh budget (no attempts, age counted
    /// from now); pending ones keep their attempts. With an id, a held request releases its whole origin, since the
    /// hold is the origin's. Returns how many requests changed and their origins.
    func retry(id: String?, now: Int64) throws -> (count: Int, origins: Set<String>) {
        try pool.write { db in
            let freshBudget = """
                state = 'pending', reason = NULL, attempts = 0, age_from = ?, next_attempt_at = ?
                """
            let selected: [Row]
            if let id {
                selected = try Row.fetchAll(
                    db, sql: "SELECT seq, origin, state FROM request WHERE id = ?", arguments: [id])
            } else {
                selected = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT seq, origin, state FROM request
                        WHERE state != 'pending' OR next_attempt_at > ?
                        """,
                    arguments: [now])
            }
            var count = 0
            var origins = Set<String>()
            for row in selected {
                let seq: Int64 = row[0]
                let origin: String = row[1]
                let state: String = row[2]
                switch state {
                case "held":
                    try db.execute(
                        sql: "UPDATE request SET \(freshBudget) WHERE origin = ? AND state = 'held'",
                        arguments: [now, now, origin])
                case "dead":
                    try db.execute(
                        sql: "UPDATE request SET \(freshBudget) WHERE seq = ?", arguments: [now, now, seq])
                default:
                    // Only the origin's first request is ever sent, so every one up to this one is made due.
                    try db.execute(
                        sql: """
                            UPDATE request SET next_attempt_at = ?
                            WHERE origin = ? AND state = 'pending' AND seq <= ? AND next_attempt_at > ?
                            """,
                        arguments: [now, origin, seq, now])
                }
                count += db.changesCount
                origins.insert(origin)
            }
            return (count, origins)
        }
    }

    /// Removes a request whatever its state; returns its origin, or nil when there was none with that id.
    func drop(id: String) throws -> String? {
        try pool.write { db in
            let origin = try String.fetchOne(db, sql: "SELECT origin FROM request WHERE id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM request WHERE id = ?", arguments: [id])
            return origin
        }
    }

    private static func encode(_ state: QueuedRequest.State) -> (name: String, reason: String?) {
        switch state {
        case .pending: ("pending", nil)
        case .held(let reason): ("held", reason)
        case .dead(let reason): ("dead", reason)
        }
    }
}
