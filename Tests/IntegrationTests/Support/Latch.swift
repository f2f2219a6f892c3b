import Foundation
import Synchronization

/// A one-shot event that threads can wait for with a timeout; once fired it stays fired.
final class Latch: Sendable {
    private let condition = NSCondition()
    private let fired = Atomic(false)

    var isFired: Bool { fired.load(ordering: .acquiring) }

    func fire() {
        condition.lock()
        fired.store(true, ordering: .releasing)
        condition.broadcast()
        condition.unlock()
    }

    /// Returns `true` if the latch fired before `timeout` passed.
    @discardableResult
    func wait(timeout: Duration) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout.seconds)
        condition.lock()
        defer { condition.unlock() }
        while !isFired {
            if !condition.wait(until: deadline) { return isFired }
        }
        return true
    }
}
