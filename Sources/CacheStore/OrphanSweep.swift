import Dispatch
import GRDB
import Logging
import Synchronization

/// Removes body files no index row points at (left by a crash between rename and commit, or by an unlink a
/// crash cut short), and bodies directories `removeAll` set aside, in the background after start-up.
///
/// A file is an orphan only if no committed row names it and no commit is about to. The writer queue renames
/// bodies and commits their rows inside `whileRenaming`, which holds `ledger`: the sweep opens the ledger
/// (so no rename is then between its rename and its commit), reads the committed ids, and treats every id
/// renamed since as known.
final class OrphanSweep: Sendable {
    private let pool: DatabasePool
    private let files: BodyFiles
    private let logger: Logger
    private let ledger = Mutex<Set<UInt64>?>(nil)
    private let cancelled = Atomic(false)
    private let done = DispatchGroup()
    /// Its own queue: with a million files the sweep takes a while, and must not hold up unlinks or `flush()`.
    private let queue = DispatchQueue(label: "larder.store.sweep", qos: .utility)

    init(pool: DatabasePool, files: BodyFiles, logger: Logger) {
        self.pool = pool
        self.files = files
        self.logger = logger
    }

    func start() {
        queue.async(group: done) { self.run() }
    }

    /// Stops at the next file, and waits until it has.
    func cancelAndWait() {
        cancelled.store(true, ordering: .relaxed)
        done.wait()
    }

    func wait() {
        done.wait()
    }

    /// Runs a batch's renames and its commit, recording the ids it renames while a sweep is running.
    func whileRenaming<T>(_ bodyIDs: [UInt64], _ body: () -> T) -> T {
        ledger.withLock { ledger in
            ledger?.formUnion(bodyIDs)
            return body()
        }
    }

    private func run() {
        for name in FileSystem.list(files.root) where name.hasPrefix(BodyFiles.trashPrefix) {
            FileSystem.removeTree(files.root + "/" + name)
        }
        ledger.withLock { $0 = [] }
        defer { ledger.withLock { $0 = nil } }
        let committed: Set<UInt64>
        do {
            committed = try pool.read { try StoreIndex.fileBodyIDs($0) }
        } catch {
            logger.error("orphan body sweep could not read the index", metadata: ["error": "\(error)"])
            return
        }
        var removed = 0
        for bucket in FileSystem.list(files.bodiesDirectory) {
            let directory = files.bodiesDirectory + "/" + bucket
            guard FileSystem.isDirectory(directory) else { continue }
            let names = FileSystem.list(directory)
            let renamed = ledger.withLock { $0 ?? [] }
            for name in names {
                if cancelled.load(ordering: .relaxed) { return }
                if let id = BodyFiles.bodyID(fileName: name), committed.contains(id) || renamed.contains(id) {
                    continue
                }
                FileSystem.remove(directory + "/" + name)
                removed += 1
            }
        }
        if removed > 0 {
            logger.notice("removed cache body files no entry points at", metadata: ["count": "\(removed)"])
        }
    }
}
