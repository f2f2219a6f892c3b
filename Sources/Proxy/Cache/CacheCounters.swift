import CachePolicy
import Synchronization

/// Request outcomes by cache status, overall and per route, for `/_larder/stats` and metrics.
final class CacheCounters: Sendable {
    struct Counts: Sendable, Equatable {
        var byStatus: [String: Int] = [:]
        var bytesFromCache = 0
        var bytesFromUpstream = 0
        var coalescedWaits = 0

        func count(_ statuses: CacheStatus...) -> Int {
            statuses.reduce(0) { $0 + byStatus[$1.rawValue, default: 0] }
        }

        /// Answers that needed no body from the origin (HIT, REVALIDATED, STALE) over all cache lookups.
        var hitRatio: Double {
            let lookups = count(.hit, .miss, .expired, .revalidated, .stale)
            return lookups == 0 ? 0 : Double(count(.hit, .revalidated, .stale)) / Double(lookups)
        }
    }

    private let state = Mutex<(total: Counts, routes: [String: Counts])>((Counts(), [:]))

    func record(status: String, route: String, bytes: Int, fromCache: Bool) {
        state.withLock { state in
            func apply(_ counts: inout Counts) {
                counts.byStatus[status, default: 0] += 1
                if fromCache { counts.bytesFromCache += bytes } else { counts.bytesFromUpstream += bytes }
            }
            apply(&state.total)
            apply(&state.routes[route, default: Counts()])
        }
    }

    func recordCoalescedWait(route: String) {
        state.withLock { state in
            state.total.coalescedWaits += 1
            state.routes[route, default: Counts()].coalescedWaits += 1
        }
    }

    func snapshot() -> (total: Counts, routes: [String: Counts]) {
        state.withLock { $0 }
    }
}
