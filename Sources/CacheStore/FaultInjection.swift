import Dispatch
import Synchronization

/// Makes the store's writes fail on purpose, so tests drive the full-disk path (ENOSPC) without filling a disk.
/// It covers every write a commit makes: creating, writing, syncing and renaming body files, and the index transaction.
/// It can also hold back the background load of the stored keys.
package final class FaultInjection: Sendable {
    private let failure = Mutex<Int32?>(nil)

    package init() {}

    /// From now on every store write fails with `code` (e.g. `ENOSPC`); nil lets writes succeed again.
    package func failWrites(with code: Int32?) {
        failure.withLock { $0 = code }
    }

    /// Holds back the background load of the stored keys (`StoredKeys`) until `releaseKeyLoad()`, so tests change
    /// the index while a load is under way.
    private let keyLoadGate = DispatchGroup()

    package func holdKeyLoad() {
        keyLoadGate.enter()
    }

    package func releaseKeyLoad() {
        keyLoadGate.leave()
    }

    func waitForKeyLoadRelease() {
        keyLoadGate.wait()
    }

    func check(_ operation: String, _ path: String) throws {
        if let code = failure.withLock({ $0 }) {
            throw StoreIOError(operation: operation, path: path, code: code)
        }
    }
}
