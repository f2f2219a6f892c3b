import Dispatch
import GRDB
import HTTPWire
import Logging

extension CacheStore {
    /// Starts storing a response; nil when storing is paused after a write error, or when `expectedSize` exceeds
    /// `maxObjectSize` (or the whole disk budget).
    public func writer(for entry: StoredEntry, expectedSize: Int?) -> CacheWriter? {
        guard backoff.allowsWrites(now: clock()) else { return nil }
        if let expectedSize, expectedSize < 0 || expectedSize > limits.storableMaxBytes { return nil }
        return CacheWriter(store: self, entry: entry, expectedSize: expectedSize)
    }

    /// After a 304 (RFC 9111 §4.3.4): replaces the stored head and times of that variant; the body stays.
    /// The memory tier sees the new head at once; the index with the next batch.
    public func refresh(key: String, variant: String, head: ResponseHead, requestTime: Int64, responseTime: Int64) {
        memory.update(key: key, variant: variant) { entry in
            entry.head = head
            entry.requestTime = requestTime
            entry.responseTime = responseTime
        }
        enqueue(
            .refresh(key: key, variant: variant, head: head, requestTime: requestTime, responseTime: responseTime))
    }

    /// Puts a committed body's variant in the memory tier ahead of its index write (see `CacheWriter.commit`);
    /// returns whether the tier took it. Only bodies the tier can hold whole qualify: a hit must find the body
    /// itself, not a row that is not written yet. Should the write fail, the drain makes the tier forget the key.
    func publishAhead(_ entry: StoredEntry, crc: UInt32, isInline: Bool, memoryCopy: [UInt8]?) -> Bool {
        guard let memoryCopy else { return false }
        return memory.publish(
            MemoryVariant(entry: entry, crc: crc, isInline: isInline, body: memoryCopy),
            keyMayBeStored: storedKeys.mayHold(entry.key))
    }

    func enqueue(_ write: PendingWrite) {
        // How long the new drain waits, when this write schedules one (see `PendingWrites.minimumDrainInterval`).
        let wait = pending.withLock { pending -> UInt64? in
            pending.writes.append(write)
            if pending.drainScheduled { return nil }
            pending.drainScheduled = true
            let earliest = pending.lastDrain + PendingWrites.minimumDrainInterval
            let now = DispatchTime.now().uptimeNanoseconds
            return earliest > now ? earliest - now : 0
        }
        guard let wait else { return }
        if wait == 0 {
            writerQueue.async { self.drain() }
        } else {
            // Weak, so a store its owner dropped after `flush()` is gone at once, not when the timer fires; writes
            // still pending then are drained by `deinit`.
            writerQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(wait))) { [weak self] in self?.drain() }
        }
    }

    /// Counts a failed write and pauses storing (logged once per outage).
    func recordWriteFailure(_ error: any Error) {
        disk.withLock { $0.writeFailures += 1 }
        backoff.recordFailure(error, now: clock(), logger: logger)
    }

    /// Reports one commit's outcome (a writer that never reached a drain), as `complete(_:)` does.
    func complete(_ completion: (@Sendable (Bool) -> Void)?, stored: Bool) {
        complete([(completion, stored)])
    }

    /// Reports commits' outcomes on `completionQueue` (so a completion may call back into the store), in order,
    /// then lets `flush()` return. One hop for all of a drain's commits: a hop each would wake that queue's thread
    /// once per commit.
    func complete(_ outcomes: [(completion: (@Sendable (Bool) -> Void)?, stored: Bool)]) {
        var reported: [(completion: @Sendable (Bool) -> Void, stored: Bool)] = []
        for outcome in outcomes {
            if let completion = outcome.completion {
                reported.append((completion, outcome.stored))
            } else {
                writesInFlight.leave()
            }
        }
        guard !reported.isEmpty else { return }
        // Holds the group, not the store: once `flush()` returns, nothing queued keeps the store alive.
        completionQueue.async { [writesInFlight, reported] in
            for outcome in reported {
                outcome.completion(outcome.stored)
                writesInFlight.leave()
            }
        }
    }

    /// Writes everything queued as one transaction: renamed bodies' rows, refreshes, batched access times, then
    /// least-recently-used eviction if the disk budget is exceeded. Runs on `writerQueue`.
    func drain() {
        let writes = pending.withLock { pending in
            pending.drainScheduled = false
            pending.lastDrain = DispatchTime.now().uptimeNanoseconds
            defer { pending.writes = [] }
            return pending.writes
        }
        let accessTimes = accesses.withLock { log in
            log.drainScheduled = false
            defer { log.times = [:] }
            return log.times
        }
        let overBudget = disk.withLock { $0.bytes > limits.diskMaxBytes }
        guard !writes.isEmpty || !accessTimes.isEmpty || overBudget else { return }

        var fileIDs: [UInt64] = []
        for case .commit(let job) in writes where !job.isInline { fileIDs.append(job.entry.bodyID) }
        let batch = orphanSweep.whileRenaming(fileIDs) {
            commitBatch(moveBodiesIntoPlace(writes), accessTimes: accessTimes)
        }

        if !batch.committed.isEmpty { backoff.recordSuccess(logger: logger) }
        for (_, error) in batch.failed { recordWriteFailure(error) }
        // A failed commit's variant may be in the memory tier already (`publishAhead`).
        let forgotten = Set(batch.evicted.map(\.key)).union(batch.invalidated).union(batch.failed.map(\.0.entry.key))
        if !forgotten.isEmpty { memory.invalidate(keys: forgotten) }
        // The key set grows with the cache, outside the tier: the memory budget covers both.
        memory.reserve(storedKeys.heapBytes)
        for (key, variants) in batch.inserted { memory.replace(key: key, with: variants) }
        if !batch.reloaded.isEmpty {
            let copies = Dictionary(
                batch.committed.compactMap { job in job.memoryCopy.map { (job.entry.bodyID, $0) } },
                uniquingKeysWith: { first, _ in first })
            for (key, rows) in batch.reloaded {
                memory.replace(
                    key: key,
                    with: rows.map { row in
                        var variant = memoryVariant(row)
                        if variant.body == nil { variant.body = copies[row.entry.bodyID] }
                        return variant
                    })
            }
        }
        if let totals = batch.totals {
            disk.withLock { disk in
                disk.entries = totals.entries
                disk.bytes = totals.bytes
                disk.evictions += batch.evicted.count
            }
        }
        unlinkBodies(batch.replaced + batch.evicted)
        // A body file this process wrote, whose checksum it computed from the bytes as they went in, is verified
        // already: the first hit on a large body need not read it whole again.
        verifiedFiles.withLock { verified in
            for job in batch.committed {
                if case .file(_, let stamp?) = job.body { verified[job.entry.bodyID] = stamp }
            }
        }
        complete(
            batch.committed.map { ($0.completion, true) } + batch.failed.map { job, _ in (job.completion, false) })
    }

    /// What one drain did, for the updates that follow its transaction.
    struct Batch {
        var committed: [CommitJob] = []
        var failed: [(CommitJob, any Error)] = []
        var replaced: [RemovedRow] = []
        var evicted: [RemovedRow] = []
        /// Keys whose variant lists changed, as they now stand, read back from the index.
        var reloaded: [String: [IndexedVariant]] = [:]
        /// Keys that had no row before the batch, with the variants it gave them, newest first: known without
        /// reading them back.
        var inserted: [String: [MemoryVariant]] = [:]
        /// Keys the memory tier must forget (a refresh that did not reach the index).
        var invalidated: Set<String> = []
        var totals: (entries: Int, bytes: Int)?
    }

    /// Renames each finished body file to its final name and syncs the bucket directories, so the rows about to
    /// commit point at whole, durable files.
    private func moveBodiesIntoPlace(_ writes: [PendingWrite]) -> (
        ready: [PendingWrite], failed: [(CommitJob, any Error)]
    ) {
        var ready: [PendingWrite] = []
        var failed: [(CommitJob, any Error)] = []
        var buckets: Set<String> = []
        for write in writes {
            guard case .commit(let job) = write, case .file(let tempPath, _) = job.body else {
                ready.append(write)
                continue
            }
            do {
                buckets.insert(try files.moveIntoPlace(tempPath, bodyID: job.entry.bodyID))
                ready.append(write)
            } catch {
                FileSystem.remove(tempPath)
                failed.append((job, error))
            }
        }
        do {
            for bucket in buckets { try FileSystem.syncDirectory(bucket) }
        } catch {
            ready = ready.filter { write in
                guard case .commit(let job) = write, !job.isInline else { return true }
                FileSystem.remove(files.path(for: job.entry.bodyID))
                failed.append((job, error))
                return false
            }
        }
        return (ready, failed)
    }

    private func commitBatch(
        _ prepared: (ready: [PendingWrite], failed: [(CommitJob, any Error)]), accessTimes: [VariantRef: Int64]
    ) -> Batch {
        var batch = Batch(failed: prepared.failed)
        let ready = prepared.ready
        let target = limits.diskMaxBytes - limits.diskMaxBytes / 20
        // Every collection here is sized for the whole batch up front: grown one doubling at a time, they were a
        // reallocation every few rows.
        // The keys are counted before the rows commit, so a lookup never finds a committed row's key absent.
        var addedKeys: [String] = []
        addedKeys.reserveCapacity(ready.count)
        for case .commit(let job) in ready { addedKeys.append(job.entry.key) }
        let wasAbsent = storedKeys.adding(addedKeys)
        // Keys no row had before this batch (every key on the miss path): afterwards their variants are exactly
        // the rows the batch inserts, so there is no older row to look up and nothing to read back. A refresh in
        // the same batch may change one of those rows; such keys take the general path. Each says whether the batch
        // has just one row for it: then, if the memory tier took that row ahead (`CommitJob.isPublished`), it holds
        // the key's whole list already, or has let the key go since, and the tier need not be told again.
        var newKeys = [String: Bool](minimumCapacity: addedKeys.count)
        for (key, absent) in zip(addedKeys, wasAbsent) {
            if absent {
                newKeys[key] = true
            } else if newKeys[key] != nil {
                newKeys[key] = false
            }
        }
        if !newKeys.isEmpty {
            for case .refresh(let key, _, _, _, _) in ready { newKeys[key] = nil }
        }
        do {
            if !ready.isEmpty { try files.faults.check("commit", files.indexPath) }
            batch = try pool.writeTransaction { db in
                var batch = batch
                batch.inserted.reserveCapacity(newKeys.count)
                batch.committed.reserveCapacity(ready.count)
                var change = StoreIndex.TotalsChange()
                try StoreIndex.touch(db, accessTimes)
                for write in ready {
                    switch write {
                    case .commit(let job) where job.isPublished && newKeys[job.entry.key] == true:
                        _ = try StoreIndex.insert(db, job, now: accessClock.next(), replacing: false, totals: &change)
                        batch.committed.append(job)
                    case .commit(let job) where newKeys[job.entry.key] != nil:
                        let key = job.entry.key
                        var variants = batch.inserted[key, default: []]
                        // Only a row this batch inserted can be in the way.
                        let earlier = variants.firstIndex { $0.entry.variant == job.entry.variant }
                        let old = try StoreIndex.insert(
                            db, job, now: accessClock.next(), replacing: earlier != nil, totals: &change)
                        if let old { batch.replaced.append(old) }
                        if let earlier { variants.remove(at: earlier) }
                        // Newest response first, as `StoreIndex.variants` orders them: this row has the largest id,
                        // so it goes before those with the same response time.
                        let position =
                            variants.firstIndex { $0.entry.responseTime <= job.entry.responseTime } ?? variants.endIndex
                        variants.insert(
                            MemoryVariant(entry: job.entry, crc: job.crc, isInline: job.isInline, body: job.memoryCopy),
                            at: position)
                        batch.inserted[key] = variants
                        batch.committed.append(job)
                    case .commit(let job):
                        if let old = try StoreIndex.insert(db, job, now: accessClock.next(), totals: &change) {
                            batch.replaced.append(old)
                        }
                        batch.committed.append(job)
                    case .refresh(let key, let variant, let head, let requestTime, let responseTime):
                        _ = try StoreIndex.refresh(
                            db, key: key, variant: variant, head: head, requestTime: requestTime,
                            responseTime: responseTime, totals: &change)
                    }
                }
                try StoreIndex.apply(db, &change)
                // Evict to 95 % of the budget, so the next commits do not each evict.
                let eviction = try StoreIndex.evict(
                    db, totals: try StoreIndex.totals(db), above: limits.diskMaxBytes, downTo: target, change: &change)
                try StoreIndex.apply(db, &change)
                batch.evicted = eviction.evicted
                batch.totals = eviction.totals
                // An evicted key is forgotten by the memory tier instead.
                let evictedKeys = Set(batch.evicted.map(\.key))
                for key in evictedKeys { batch.inserted[key] = nil }
                for key in Set(ready.map(\.key)) where !evictedKeys.contains(key) && newKeys[key] == nil {
                    batch.reloaded[key] = try StoreIndex.variants(db, key: key, withInlineBodies: false)
                }
                return batch
            }
            storedKeys.removed((batch.replaced + batch.evicted).lazy.map(\.key))
        } catch {
            storedKeys.removed(addedKeys)
            batch = Batch(failed: prepared.failed)
            for write in ready {
                switch write {
                case .commit(let job):
                    if !job.isInline { FileSystem.remove(files.path(for: job.entry.bodyID)) }
                    batch.failed.append((job, error))
                case .refresh(let key, _, _, _, _):
                    batch.invalidated.insert(key)
                }
            }
            if batch.failed.isEmpty { backoff.recordFailure(error, now: clock(), logger: logger) }
        }
        return batch
    }

    /// Unlinks the files of bodies that left the index, in the background.
    func unlinkBodies(_ rows: [RemovedRow]) {
        guard !rows.isEmpty else { return }
        verifiedFiles.withLock { verified in
            for row in rows { verified[row.bodyID] = nil }
        }
        let paths = rows.filter(\.hasFile).map { files.path(for: $0.bodyID) }
        guard !paths.isEmpty else { return }
        janitorQueue.async(group: janitorWork) {
            for path in paths { FileSystem.remove(path) }
        }
    }
}
