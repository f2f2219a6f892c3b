import Dispatch
import GRDB
import HTTPWire
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The cache's storage: a memory tier (LRU by bytes) over a disk tier (SQLite index plus body files).
///
/// Reads run on the caller's thread: a memory hit takes one mutex; a key never stored, two (`StoredKeys`);
/// otherwise one indexed SQLite read.
/// Every index change runs on `writerQueue`, batched into one transaction per drain, and is followed by the
/// matching memory-tier update, so the tier never shows what the index no longer holds.
///
/// Crash safety: a body file is written under `tmp/`, synced, renamed to `bodies/xx/<id>` and its directory
/// synced before the row naming it commits, so a row never points at a partial body. After a crash, `tmp/` is
/// emptied at start-up, files without a row are swept in the background, and a row whose file went missing or
/// changed is caught by `body(of:)` (size, CRC-32) and removed.
public final class CacheStore: Sendable {
    let limits: StoreLimits
    let logger: Logger
    let files: BodyFiles
    let pool: DatabasePool
    let memory: MemoryTier
    let backoff: WriteBackoff
    let accessClock: AccessClock
    let orphanSweep: OrphanSweep
    let bodyIDs = BodyIDs()
    let storedKeys = StoredKeys()
    /// Seconds since 1970; injected by tests to step through the write back-off.
    let clock: @Sendable () -> Int64
    private let lockDescriptor: Int32

    /// Runs every index change, one batch at a time.
    let writerQueue = DispatchQueue(label: "larder.store.writer")
    /// Unlinks bodies that left the index.
    let janitorQueue = DispatchQueue(label: "larder.store.janitor", qos: .utility)
    /// Runs commit completions, in order. A serial queue of its own gets a thread even when the global pool is
    /// busy; completions are expected to be short (a hop to the caller's queue).
    let completionQueue = DispatchQueue(label: "larder.store.completions")
    /// Each writer's file queue targets this one, so bodies are written in parallel.
    let bodyQueue = DispatchQueue(label: "larder.store.bodies", attributes: .concurrent)
    /// Entered by each `commit()` until its completion has run, and by each abandoned temp file until it is gone.
    let writesInFlight = DispatchGroup()
    let janitorWork = DispatchGroup()

    let pending = Mutex(PendingWrites())
    let accesses = Mutex(AccessLog())
    /// Body files verified by this process, with the stamp they had then.
    let verifiedFiles = Mutex<[UInt64: FileStamp]>([:])
    let disk: Mutex<DiskCounters>

    /// Index changes waiting for the next drain.
    struct PendingWrites {
        /// The least time from one drain's start to the next one's. A drain costs about the same for one commit as
        /// for dozens (a transaction, its WAL frames, a checkpoint now and then, a hop to the completion queue, two
        /// thread wake-ups), and under load a writer draining as soon as it wakes takes one or two commits at a
        /// time: on one CPU that was most of a miss's cost. Only a commit arriving within this time of the last
        /// drain waits (at most this long); one after a quiet spell is drained at once. Nothing is served later
        /// for it: a small body is in the memory tier from the moment it is committed (`publishAhead`), and
        /// requests for a larger one follow its fetch in the coalescer until the row lands. What the wait costs is
        /// durability: a crash loses at most this much of the latest commits, which a cache can afford.
        static let minimumDrainInterval: UInt64 = 10_000_000
        var writes: [PendingWrite] = []
        var drainScheduled = false
        /// When the last drain took its writes (`DispatchTime.uptimeNanoseconds`).
        var lastDrain: UInt64 = 0
    }

    /// Hits not yet written to `last_access`; written with the next batch, or within `AccessLog.delay`.
    struct AccessLog {
        static let delay = DispatchTimeInterval.seconds(5)
        static let maxHeld = 10_000
        var times: [VariantRef: Int64] = [:]
        var drainScheduled = false

        /// When a newly logged hit reaches the index.
        enum Write {
            case withNextBatch, later, now
        }
    }

    struct DiskCounters {
        var entries = 0
        var bytes = 0
        var evictions = 0
        var writeFailures = 0
    }

    /// Opens (creating if needed) the cache in `directory`: directories 0700, files 0600, the index in WAL mode.
    /// Recovery is quick whatever the size: `tmp/` is emptied, everything else is checked lazily or in the
    /// background.
    public convenience init(directory: String, limits: StoreLimits, logger: Logger) throws {
        try self.init(
            directory: directory, limits: limits, logger: logger, clock: { AccessClock.wallMillis() / 1000 },
            faults: FaultInjection())
    }

    /// The same, with the clock the write back-off reads, and a hook that makes writes fail.
    package init(
        directory: String, limits: StoreLimits, logger: Logger, clock: @escaping @Sendable () -> Int64,
        faults: FaultInjection
    ) throws {
        let files = BodyFiles(root: directory, faults: faults)
        let lockDescriptor: Int32
        let pool: DatabasePool
        let totals: (entries: Int, bytes: Int)
        let latestAccess: Int64
        do {
            try FileSystem.makeDirectories(directory)
            lockDescriptor = try CacheStore.lock(files.lockPath, directory: directory)
        } catch let error as StoreIOError {
            throw CacheStoreError.cannotOpen(path: directory, reason: "\(error)")
        }
        do {
            try FileSystem.makeDirectory(files.tempDirectory)
            try FileSystem.makeDirectory(files.bodiesDirectory)
            let leftovers = FileSystem.removeContents(of: files.tempDirectory)
            if leftovers > 0 {
                logger.notice("removed unfinished cache bodies", metadata: ["count": "\(leftovers)"])
            }
            try FileSystem.createIfMissing(files.indexPath)
            var configuration = Configuration()
            configuration.label = "larder.store"
            configuration.prepareDatabase { db in
                // WAL with NORMAL: a commit survives a process crash; power loss may lose the last ones.
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                // Statement journals (each INSERT into the indexed table has one) in memory: by default one that grows
                // past 64 KiB spills to a new temporary file under /var/tmp, created and unlinked within the statement.
                try db.execute(sql: "PRAGMA temp_store = MEMORY")
                // 16 KiB pages for a new index (an existing one keeps its own; changing it would take a VACUUM). A
                // row with a 1 KiB inline body is about 1.5 KiB: 4 KiB pages held two and wasted a quarter, and every
                // byte of a page is written twice, to the WAL and again by the checkpoint. With 16 KiB pages the index
                // takes 1,585 bytes a row instead of 2,146, and a miss 4 % less CPU (issue 7's note, `Benchmarks/ab.sh`);
                // 8 KiB did as well, 64 KiB worse. Only takes effect before the first table exists; a no-op after.
                try db.execute(sql: "PRAGMA page_size = \(StoreIndex.pageSize)")
            }
            pool = try DatabasePool(path: files.indexPath, configuration: configuration)
            try StoreIndex.migrator().migrate(pool)
            (totals, latestAccess) = try pool.read { db in
                (try StoreIndex.totals(db), try StoreIndex.latestAccess(db))
            }
        } catch {
            close(lockDescriptor)
            throw CacheStoreError.cannotOpen(path: directory, reason: "\(error)")
        }
        self.limits = limits
        self.logger = logger
        self.files = files
        self.pool = pool
        self.lockDescriptor = lockDescriptor
        self.clock = clock
        self.memory = MemoryTier(maxBytes: limits.memoryMaxBytes)
        self.backoff = WriteBackoff(pause: limits.pauseAfterWriteError)
        self.accessClock = AccessClock(after: latestAccess)
        self.orphanSweep = OrphanSweep(pool: pool, files: files, logger: logger)
        self.disk = Mutex(DiskCounters(entries: totals.entries, bytes: totals.bytes))
        orphanSweep.start()
        do {
            // Taken before any index change can run (the writer queue has nothing yet), as `load` requires.
            storedKeys.load(from: try pool.makeSnapshot(), expectedRows: totals.entries, faults: faults, logger: logger)
        } catch {
            logger.error("cache key set could not be loaded", metadata: ["error": "\(error)"])
        }
        if totals.bytes > limits.diskMaxBytes {
            // The budget shrank since the last run.
            writerQueue.async { self.drain() }
        }
    }

    deinit {
        // A delayed drain does not keep the store alive (see `enqueue`): what it would have written lands now. No
        // drain can be running, since a running drain holds the store.
        if pending.withLock({ !$0.writes.isEmpty }) { drain() }
        orphanSweep.cancelAndWait()
        storedKeys.cancelAndWait()
        close(lockDescriptor)
    }

    /// One store per directory: an exclusive `flock` on `CACHE_DIR/lock`, released when the store goes away.
    private static func lock(_ path: String, directory: String) throws -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, FileSystem.fileMode)
        guard descriptor >= 0 else { throw StoreIOError(operation: "open", path: path, code: errno) }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            close(descriptor)
            if code == EWOULDBLOCK { throw CacheStoreError.directoryInUse(path: directory) }
            throw StoreIOError(operation: "flock", path: path, code: code)
        }
        return descriptor
    }

    public func stats() -> CacheStats {
        let memory = memory.counts()
        let disk = disk.withLock { $0 }
        return CacheStats(
            memoryEntries: memory.entries, memoryBytes: memory.bytes, diskEntries: disk.entries,
            diskBytes: disk.bytes, evictions: disk.evictions, memoryEvictions: memory.evictions,
            writeFailures: disk.writeFailures)
    }

    /// Waits until queued commits are durable and their completions have run, then writes pending access times
    /// and finishes pending unlinks (tests; shutdown). Not to be called from a commit completion.
    public func flush() {
        writesInFlight.wait()
        writerQueue.sync { drain() }
        janitorWork.wait()
    }

    /// What the memory tier sets aside of its budget for the stored-key set (tests).
    package var memoryReservedBytes: Int { memory.reservedBytes }

    /// Where the body file of `entry` is, if it has one (tests damage it on purpose).
    package func bodyFilePath(of entry: StoredEntry) -> String {
        files.path(for: entry.bodyID)
    }

    /// Runs `body` on the writer queue, so the index changes it queues all land in the one batch after it (tests).
    package func holdingWrites<T>(_ body: () throws -> T) rethrows -> T {
        try writerQueue.sync(execute: body)
    }

    /// Waits for the start-up orphan sweep (tests).
    package func waitForOrphanSweep() {
        orphanSweep.wait()
    }

    /// Waits until the set of stored keys is loaded, and says whether it was (tests).
    package func waitForStoredKeys() -> Bool {
        storedKeys.waitForLoad()
        return storedKeys.isLoaded
    }

    /// What the set of stored keys says of `key`: false means "certainly not stored" (tests).
    package func storedKeysMayHold(_ key: String) -> Bool {
        storedKeys.mayHold(key)
    }
}
