/// `Poll` for conditions that take a request to check (an entry turning stale, a refresh landing): checks
/// `probe` repeatedly, a little apart, until it yields a value or `timeout` passes.
enum CachePoll {
    @discardableResult
    static func value<T>(
        _ what: String,
        timeout: Duration = .seconds(10),
        _ probe: () async throws -> T?
    ) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        var interval = Duration.milliseconds(5)
        while true {
            if let value = try await probe() { return value }
            if ContinuousClock.now >= deadline { throw HarnessError.timedOut("\(what) (gave up after \(timeout))") }
            try await Task.sleep(for: interval)
            interval = min(interval * 2, .milliseconds(100))
        }
    }

    static func until(_ what: String, timeout: Duration = .seconds(10), _ condition: () async throws -> Bool)
        async throws
    {
        try await value(what, timeout: timeout) { try await condition() ? true : nil }
    }

    /// Waits until `url`'s stored response is stale in `larder`'s eyes, without reaching the origin:
    /// `only-if-cached, min-fresh=0` is served while the entry is fresh and answered 504 once it is stale
    /// (neither `max-stale` nor `stale-while-revalidate` applies with `min-fresh`, RFC 5861 §3).
    static func untilStale(_ url: String, in larder: Daemon, timeout: Duration = .seconds(10)) async throws {
        try await until("\(url) to turn stale in larder", timeout: timeout) {
            let probe = try await Curl.get(url, via: larder, headers: ["Cache-Control: only-if-cached, min-fresh=0"])
            return probe.status == 504
        }
    }
}
