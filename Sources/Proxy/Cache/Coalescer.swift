import Synchronization

/// Collapses concurrent misses for one cache key into one origin fetch: the first request leads,
/// the others wait for its outcome and then look the key up again.
final class Coalescer: Sendable {
    enum Role {
        case leader
        case follower
    }

    private let waiting = Mutex<[String: [@Sendable () -> Void]]>([:])

    /// Joins the fetch for `key`. A follower's `wake` runs (on an arbitrary thread) when the leader
    /// releases the key; a leader's `wake` is never called.
    func join(_ key: String, wake: @escaping @Sendable () -> Void) -> Role {
        waiting.withLock { waiting in
            if waiting[key] != nil {
                waiting[key]!.append(wake)  // checked just above
                return .follower
            }
            waiting[key] = []
            return .leader
        }
    }

    /// Waits for a fetch of `key` already under way, without starting one: true when there is one (`wake` runs
    /// when its leader releases the key), false otherwise (`wake` never runs).
    func follow(_ key: String, wake: @escaping @Sendable () -> Void) -> Bool {
        waiting.withLock { waiting in
            guard waiting[key] != nil else { return false }
            waiting[key]!.append(wake)  // checked just above
            return true
        }
    }

    /// The leader is done (stored, not storable, or failed): wake every follower.
    func release(_ key: String) {
        let followers = waiting.withLock { $0.removeValue(forKey: key) } ?? []
        for wake in followers { wake() }
    }

    var inFlightKeys: Int { waiting.withLock { $0.count } }
}
