import Dispatch
import Metrics
import Synchronization

/// Larder's metrics, through swift-metrics (the daemon exports them in Prometheus text format).
/// Counters are made once per label set and kept, so recording one costs a dictionary look-up.
final class ProxyMetrics: Sendable {
    private let requests = Mutex<[String: Counter]>([:])
    private let bytesFromCache = Counter(label: "larder_bytes_served_total", dimensions: [("source", "cache")])
    private let bytesFromUpstream = Counter(label: "larder_bytes_served_total", dimensions: [("source", "upstream")])
    private let upstreamLatency = Metrics.Timer(label: "larder_upstream_response_seconds")
    private let coalesced = Counter(label: "larder_coalesced_waits_total")

    func recordRequest(cacheStatus: String, route: String, bytes: Int, fromCache: Bool) {
        let key = cacheStatus + "\u{0}" + route
        let counter = requests.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: "larder_requests_total", dimensions: [("cache_status", cacheStatus), ("route", route)])
            counters[key] = counter
            return counter
        }
        counter.increment()
        (fromCache ? bytesFromCache : bytesFromUpstream).increment(by: bytes)
    }

    /// Time from sending a request to the origin until its response head arrived.
    func recordUpstreamLatency(since start: DispatchTime) {
        upstreamLatency.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds))
    }

    func recordCoalescedWait() {
        coalesced.increment()
    }
}
