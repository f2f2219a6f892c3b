import HTTPWire
import Logging
import ReplayQueue
import Upstream

/// Back-off short enough for tests to watch several attempts, and room for many of them.
let quickSettings = QueueSettings(maxAttempts: 1000, backoffBase: 5, backoffMax: 40)

/// One test's queue: its temp directory, its libcurl client, its log. Call `close()` at the end.
final class QueueHarness: Sendable {
    let directory = TemporaryDirectory()
    let upstream: UpstreamClient
    let log = LogRecorder()
    let clock = ShiftedClock()
    let settings: QueueSettings

    init(settings: QueueSettings = quickSettings) {
        self.settings = settings
        let quiet = Logger(label: "larder.upstream.test") { _ in SwiftLogNoOpLogHandler() }
        upstream = UpstreamClient(logger: quiet, checkDestination: { _ in .allow })
    }

    /// A queue on this harness's file; several may be opened in turn, as restarts.
    func open() throws -> ReplayQueue {
        let clock = clock
        return try ReplayQueue(
            path: directory.queueFile, settings: settings, upstream: upstream, logger: log.logger,
            now: { clock.now }, timeouts: UpstreamTimeouts(connectMilliseconds: 2_000, readSeconds: 30))
    }

    func close() {
        upstream.stop()
    }
}

extension ReplayQueue {
    /// Queues `POST <origin><path>` with `body` and a couple of end-to-end fields.
    @discardableResult
    func post(
        _ origin: OriginServer, _ path: String, body: String, headers: HTTPHeaders = ["Content-Type": "text/plain"]
    ) throws -> QueuedRequest {
        // ! : the test origin's URL is always a valid absolute http URL.
        let url = AbsoluteURL(string: origin.url(path))!
        return try enqueue(method: "POST", url: url, headers: headers, body: Array(body.utf8), route: "api").request
    }

    func request(_ id: String) -> QueuedRequest? {
        list().first { $0.id == id }
    }

    func pending(on origin: OriginServer) -> [QueuedRequest] {
        list().filter { $0.origin == origin.origin }
    }
}
