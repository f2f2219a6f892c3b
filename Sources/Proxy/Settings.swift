import CachePolicy
import Dispatch

/// One loaded config, immutable, with the values derived from it that connections read often. The server swaps in
/// a new one on reload; a request keeps the one it started with.
final class Settings: Sendable {
    let config: Config
    /// Pipelined bytes Larder holds in memory before it stops reading a client.
    let maxBufferedRequestBytes: Int
    /// How often connections check their timeouts: fine enough for the shortest one configured.
    let timerInterval: DispatchTimeInterval
    /// The `Via` value Larder adds to responses (RFC 9110 §7.6.3).
    let responseVia: String

    init(_ config: Config) {
        self.config = config
        let limits = config.limits
        maxBufferedRequestBytes = limits.maxRequestLineBytes + limits.maxHeaderBytes + 64 * 1024
        let timeouts = config.timeouts
        let shortest = min(timeouts.headerMilliseconds, timeouts.idleMilliseconds) / 4
        timerInterval = .milliseconds(Int(min(1000, max(50, shortest))))
        responseVia = "1.1 \(config.viaName)"
    }
}
