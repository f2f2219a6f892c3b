import CacheStore
import Metrics
import Prometheus
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
    }

    func observe(_ store: CacheStore?) {
        self.store.withLock { $0 = store }
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
        return registry.emitToString()
    }
}
