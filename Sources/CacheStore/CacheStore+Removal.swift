import Dispatch
import GRDB
import Logging

extension CacheStore {
    /// Removes every variant of `key`; returns how many.
    @discardableResult
    public func remove(key: String) -> Int { removeRows(.key(key)) }

    /// Removes every variant of every key for `url` (whatever the method in the key).
    @discardableResult
    public func remove(url: String) -> Int { removeRows(.url(url)) }

    @discardableResult
    public func remove(route: String) -> Int { removeRows(.route(route)) }

    /// Empties the cache. The body files go with their directory: it is renamed aside at once and deleted in
    /// the background (or, after a crash, at the next start-up).
    @discardableResult
    public func removeAll() -> Int {
        writerQueue.sync {
            drain()
            let count: Int
            let totals: (entries: Int, bytes: Int)
            do {
                (count, totals) = try pool.write { db in (try StoreIndex.deleteAll(db), try StoreIndex.totals(db)) }
            } catch {
                logger.error("cache removal failed", metadata: ["error": "\(error)"])
                return 0
            }
            memory.removeAll()
            storedKeys.removedAll()
            verifiedFiles.withLock { $0 = [:] }
            disk.withLock { disk in
                disk.entries = totals.entries
                disk.bytes = totals.bytes
            }
            let trash = files.newTrashPath()
            do {
                try FileSystem.move(files.bodiesDirectory, to: trash)
                try FileSystem.makeDirectory(files.bodiesDirectory)
            } catch {
                // The files stay; the next start-up's orphan sweep removes them.
                logger.warning("cache body files could not be moved aside", metadata: ["error": "\(error)"])
                return count
            }
            janitorQueue.async(group: janitorWork) { FileSystem.removeTree(trash) }
            return count
        }
    }

    /// Deletes the selected rows after any queued commits, so a purge removes what was stored before it.
    /// Removal is allowed while storing is paused: it frees space.
    func removeRows(_ filter: RowFilter) -> Int {
        writerQueue.sync {
            drain()
            let removed: [RemovedRow]
            let totals: (entries: Int, bytes: Int)
            do {
                (removed, totals) = try pool.write { db in
                    var change = StoreIndex.TotalsChange()
                    let removed = try StoreIndex.delete(db, filter, totals: &change)
                    try StoreIndex.apply(db, &change)
                    return (removed, try StoreIndex.totals(db))
                }
            } catch {
                logger.error("cache removal failed", metadata: ["error": "\(error)"])
                return 0
            }
            storedKeys.removed(removed.lazy.map(\.key))
            memory.invalidate(keys: Set(removed.map(\.key)))
            disk.withLock { disk in
                disk.entries = totals.entries
                disk.bytes = totals.bytes
            }
            unlinkBodies(removed)
            return removed.count
        }
    }
}
