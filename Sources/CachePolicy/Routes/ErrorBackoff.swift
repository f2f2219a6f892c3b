import HTTPWire

/// One origin's recent failures, so that while it keeps failing, requests that may be answered stale are answered
/// stale at once instead of each waiting for the origin to fail again. The edge keeps one per origin
/// (`ErrorBackoff.origin(of:)`), records every fetch's outcome, and passes it to `PolicyDecision`.
public struct ErrorBackoff: Sendable, Equatable {
    /// When the origin last failed (seconds since 1970); nil after a success.
    public private(set) var lastFailure: Int64?
    /// Failures in a row since the last success.
    public private(set) var consecutiveFailures = 0

    public init() {}

    /// The key one origin's back-off is kept under: scheme and authority (`https://api.example.com`).
    public static func origin(of url: AbsoluteURL) -> String {
        "\(url.scheme)://\(url.authority)"
    }

    /// Whether an answer from the origin counts as a failure: any 5xx, as for `staleIfError`. An origin that
    /// cannot be reached or times out has failed too.
    public static func isFailure(status: Int) -> Bool {
        (500..<600).contains(status)
    }

    public mutating func recordFailure(at now: Int64) {
        lastFailure = now
        consecutiveFailures += 1
    }

    public mutating func recordSuccess() {
        lastFailure = nil
        consecutiveFailures = 0
    }

    /// Whether, at `now`, the origin should be left alone for a route whose `errorBackoff` is `window` seconds:
    /// it failed less than `window` seconds ago. A clock that went back does not hold the window open.
    public func isOpen(at now: Int64, window: Int64) -> Bool {
        guard let lastFailure, window > 0 else { return false }
        return now >= lastFailure && now - lastFailure < window
    }
}
