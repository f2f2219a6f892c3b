import Dispatch
import GRDB
import Logging
import Synchronization

/// How many index rows each key has, by a 64-bit hash of the key's bytes, so that looking up a key that was never
/// stored (every request on the miss path) answers "not stored" without reading SQLite.
///
/// Never a false "not stored": a key's count goes up before the transaction adding its row commits, and down only
/// after the transaction removing it did (a failed transaction gives its increments back). Keys whose hashes collide
/// share a count, which only costs a SQLite read. Counting rows, not keys, is what lets a removal know whether other
/// variants of the key remain. Every change runs on the store's writer queue.
///
/// Start-up with a million rows must stay quick, so the counts are read in the background from a snapshot taken when
/// the store opens; until they are in, `mayHold` says yes and lookups read SQLite as before. Changes made meanwhile
/// are journaled and applied on top of the snapshot's counts.
final class StoredKeys: Sendable {
    private struct State {
        /// Rows per key hash; nil until loaded.
        var counts: [UInt64: UInt32]?
        /// While loading: changes since the snapshot.
        var journal = Journal()
    }

    private struct Journal {
        var deltas: [UInt64: Int] = [:]
        /// Everything was removed after the snapshot: its counts no longer hold.
        var cleared = false
    }

    private let state = Mutex(State())
    private let cancelled = Atomic(false)
    private let loading = DispatchGroup()

    static func hash(_ key: String) -> UInt64 {
        var key = key
        var hasher = Hasher()
        key.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// False only when no row has this key.
    func mayHold(_ key: String) -> Bool {
        let hash = StoredKeys.hash(key)
        return state.withLock { state in
            guard let counts = state.counts else { return true }
            return counts[hash] != nil
        }
    }

    /// The heap the counts take: a hash table of 8-byte keys and 4-byte counts with its occupancy bitmap, sized by its
    /// capacity, which stays ahead of the row count. About 16 bytes a row, some 16 MiB for a million: charged to the
    /// memory budget (`MemoryTier.reserve`), since it grows with the cache.
    var heapBytes: Int {
        state.withLock { state in
            let capacity = state.counts?.capacity ?? 0
            return capacity * (MemoryLayout<UInt64>.stride + MemoryLayout<UInt32>.stride) + capacity / 8
        }
    }

    /// Whether the counts are loaded (tests).
    var isLoaded: Bool { state.withLock { $0.counts != nil } }

    /// Before a transaction that adds a row for each of `keys` (once per row). Says, for each, whether the key
    /// certainly had no row before it (always false while the counts are loading); a key listed twice has a row
    /// the second time.
    @discardableResult
    func adding(_ keys: [String]) -> [Bool] {
        let hashes = keys.map(StoredKeys.hash)
        guard !hashes.isEmpty else { return [] }
        return state.withLock { state in
            guard state.counts != nil else {
                for hash in hashes { state.journal.deltas[hash, default: 0] += 1 }
                return Array(repeating: false, count: hashes.count)
            }
            // ! : the counts are loaded (checked just above), and changed in place rather than copied.
            return hashes.map { hash in
                let absent = state.counts![hash] == nil
                StoredKeys.apply(1, to: hash, in: &state.counts!)
                return absent
            }
        }
    }

    /// After a transaction removed a row for each of `keys` (once per row), or when one that was to add them failed.
    func removed(_ keys: some Sequence<String>) {
        change(keys, by: -1)
    }

    /// After every row was deleted.
    func removedAll() {
        state.withLock { state in
            if state.counts != nil {
                state.counts = [:]
            } else {
                state.journal = Journal(deltas: [:], cleared: true)
            }
        }
    }

    private func change(_ keys: some Sequence<String>, by delta: Int) {
        let hashes = keys.map(StoredKeys.hash)
        guard !hashes.isEmpty else { return }
        state.withLock { state in
            guard state.counts != nil else {
                for hash in hashes { state.journal.deltas[hash, default: 0] += delta }
                return
            }
            for hash in hashes { StoredKeys.apply(delta, to: hash, in: &state.counts!) }
        }
    }

    private static func apply(_ delta: Int, to hash: UInt64, in counts: inout [UInt64: UInt32]) {
        let count = Int(counts[hash] ?? 0) + delta
        counts[hash] = count > 0 ? UInt32(clamping: count) : nil
    }

    // MARK: Loading

    /// Starts counting the rows of `snapshot` in the background. The snapshot must be taken while no index change
    /// runs, and before any change this object is told of.
    func load(from snapshot: DatabaseSnapshot, expectedRows: Int, faults: FaultInjection, logger: Logger) {
        DispatchQueue.global(qos: .utility).async(group: loading) { [self] in
            faults.waitForKeyLoadRelease()
            var counts: [UInt64: UInt32] = [:]
            counts.reserveCapacity(expectedRows)
            do {
                let finished = try snapshot.read { db in
                    let rows = try Row.fetchCursor(db, sql: "SELECT key FROM entry")
                    var read = 0
                    while let row = try rows.next() {
                        read += 1
                        if read % 4096 == 0, cancelled.load(ordering: .relaxed) { return false }
                        // The key's bytes in place: no String per row.
                        let hash = try row.withUnsafeData(atIndex: 0) { data in
                            var hasher = Hasher()
                            data?.withUnsafeBytes { hasher.combine(bytes: $0) }
                            return UInt64(bitPattern: Int64(hasher.finalize()))
                        }
                        StoredKeys.apply(1, to: hash, in: &counts)
                    }
                    return true
                }
                if finished { install(counts) }
            } catch {
                // Lookups keep reading SQLite.
                logger.error("cache key set could not be loaded", metadata: ["error": "\(error)"])
            }
        }
    }

    private func install(_ loaded: [UInt64: UInt32]) {
        state.withLock { state in
            var counts = state.journal.cleared ? [:] : loaded
            for (hash, delta) in state.journal.deltas { StoredKeys.apply(delta, to: hash, in: &counts) }
            state.counts = counts
            state.journal = Journal()
        }
    }

    /// Stops a load in progress, and waits until it has.
    func cancelAndWait() {
        cancelled.store(true, ordering: .relaxed)
        loading.wait()
    }

    /// Waits until the load is over (tests).
    func waitForLoad() {
        loading.wait()
    }
}
