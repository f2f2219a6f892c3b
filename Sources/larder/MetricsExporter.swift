import CacheStore
import Metrics
import Prometheus
import ReplayQueue
import Synchronization

/// Owns the Prometheus registry behind swift-metrics, and renders it for `/_larder/metrics`,
/// refreshing the store's gauges first (they are read, not counted, so they are sampled at scrape).
final class MetricsExporter: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let entries: (memory: Metrics.Gauge, disk: Metrics.Gauge)
    private let bytes: (memory: Metrics.Gauge, disk: Metrics.Gauge)
    private let evictions: Metrics.Gauge
    private let writeFailures: Metrics.Gauge
    private let store = Mutex<CacheStore?>(nil)
    private let queue = Mutex<ReplayQueue?>(nil)
    private let queueDepths = Mutex<[String: Metrics.Gauge]>([:])
    /// Every origin the queue has had requests for, so that one whose queue emptied reads 0 rather than its last
    /// depth (`depthByOrigin` leaves it out).
    private let queueOrigins = Mutex<Set<String>>([])
    private let queueCounters: (delivered: Metrics.Gauge, failed: Metrics.Gauge, dead: Metrics.Gauge)

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ]
        MetricsSystem.bootstrap(factory)
        entries = (
            Metrics.Gauge(label: "larder_store_entries", dimensions: [("tier", "memory")]),
            Metrics.Gauge(label: "larder_store_entries", dimensions: [("tier", "disk")])
        )
        bytes = (
            Metrics.Gauge(label: "larder_store_bytes", dimensions: [("tier", "memory")]),
            Metrics.Gauge(label: "larder_store_bytes", dimensions: [("tier", "disk")])
        )
        evictions = Metrics.Gauge(label: "larder_store_evictions")
        writeFailures = Metrics.Gauge(label: "larder_store_write_failures")
        queueCounters = (
            Metrics.Gauge(label: "larder_queue_deliveries"),
            Metrics.Gauge(label: "larder_queue_failed_attempts"),
            Metrics.Gauge(label: "larder_queue_dead_letters")
        )
    }

    func observe(_ queue: ReplayQueue) {
        self.queue.withLock { $0 = queue }
    }

    func observe(_ store: CacheStore?) {
        self.store.withLock { $0 = store }
    }

    private func gauge(origin: String, state: String) -> Metrics.Gauge {
        queueDepths.withLock { gauges in
            let key = origin + " " + state
            if let gauge = gauges[key] { return gauge }
            let gauge = Metrics.Gauge(label: "larder_queue_depth", dimensions: [("origin", origin), ("state", state)])
            gauges[key] = gauge
            return gauge
        }
    }

    func render() -> String {
        if let stats = store.withLock({ $0 })?.stats() {
            entries.memory.record(stats.memoryEntries)
            entries.disk.record(stats.diskEntries)
            bytes.memory.record(stats.memoryBytes)
            bytes.disk.record(stats.diskBytes)
            evictions.record(stats.evictions)
            writeFailures.record(stats.writeFailures)
        }
        if let queue = queue.withLock({ $0 }) {
            let counters = queue.counters()
            queueCounters.delivered.record(counters.delivered)
            queueCounters.failed.record(counters.failed)
            queueCounters.dead.record(counters.deadLettered)
            let depths = queue.depthByOrigin()
            let origins = queueOrigins.withLock { origins in
                origins.formUnion(depths.keys)
                return origins
            }
            for origin in origins {
                let depth = depths[origin] ?? OriginDepth()
                for (state, count) in [("pending", depth.pending), ("held", depth.held), ("dead", depth.dead)] {
                    gauge(origin: origin, state: state).record(count)
                }
            }
        }
        return registry.emitToString()
    }
}
