/// Waits for a condition no callback reports (a row's state, what the origin saw) by checking it repeatedly until a
/// deadline. The tests' only way to wait; it never sleeps a fixed time.
enum Poll {
    struct TimedOut: Error, CustomStringConvertible {
        var description: String
    }

    /// Returns the first non-nil value `probe` produces; throws `TimedOut` after `timeout`.
    @discardableResult
    static func value<T>(_ what: String, timeout: Duration = .seconds(10), _ probe: () throws -> T?) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        var interval = Duration.milliseconds(1)
        while true {
            if let value = try probe() { return value }
            if ContinuousClock.now >= deadline { throw TimedOut(description: "\(what) (gave up after \(timeout))") }
            try await Task.sleep(for: interval)
            interval = min(interval * 2, .milliseconds(10))
        }
    }

    /// Returns once `condition` holds; throws `TimedOut` after `timeout`.
    static func until(_ what: String, timeout: Duration = .seconds(10), _ condition: () throws -> Bool) async throws {
        try await value(what, timeout: timeout) { try condition() ? true : nil }
    }
}
