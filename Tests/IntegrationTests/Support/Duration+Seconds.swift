/// Conversions the POSIX and Foundation calls in the harness need.
extension Duration {
    /// The duration in seconds, as `Thread`, `NSCondition` and `poll(2)` want it.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }

    /// The duration in whole milliseconds, rounded up and clamped to what `poll(2)` takes.
    var pollMilliseconds: Int32 {
        let millis = (seconds * 1000).rounded(.up)
        return Int32(max(0, min(millis, Double(Int32.max))))
    }
}
