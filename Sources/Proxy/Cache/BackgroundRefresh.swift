import CachePolicy
import CacheStore
import HTTPWire
import Synchronization
import Upstream

/// Refreshes one stored response while stale copies are being served (RFC 5861 §3), without a
/// client waiting. Events arrive on the libcurl thread, one at a time, so its state needs no queue
/// of its own; the mutex only makes that visible to the compiler.
final class BackgroundRefresh: Sendable {
    private struct State {
        var writer: CacheWriter?
    }

    private let server: ProxyServer
    private let entry: StoredEntry
    private let request: RequestHead
    private let requestTime: Int64
    private let state = Mutex(State())

    init(server: ProxyServer, entry: StoredEntry, request: RequestHead, requestTime: Int64) {
        self.server = server
        self.entry = entry
        self.request = request
        self.requestTime = requestTime
    }

    func start(_ upstreamRequest: UpstreamRequest) {
        server.upstream.start(upstreamRequest) { event in self.handle(event) }
    }

    private func handle(_ event: UpstreamEvent) {
        guard let store = server.store else { return }
        switch event {
        case .head(let origin):
            let now = server.now()
            if origin.status == 304 {
                let head = RFC9111.updatedResponse(stored: entry.head, with: origin, receivedAt: now)
                store.refresh(key: entry.key, variant: entry.variant, head: head, requestTime: requestTime, responseTime: now)
                return
            }
            let config = server.config.cache
            let options = StoreOptions(maxObjectSize: Int(config.maxObjectSize), heuristicFreshnessCap: config.heuristicMaxAgeSeconds)
            guard RFC9111.storability(request: request, response: origin, options: options) == .store else { return }
            var fresh = entry
            fresh.head = ResponseHead(status: origin.status, reason: origin.reason, headers: RFC9111.storableHeaders(origin))
            fresh.requestTime = requestTime
            fresh.responseTime = now
            let length = origin.headers["Content-Length"].flatMap { Int($0) }
            let writer = store.writer(for: fresh, expectedSize: length)
            state.withLock { $0.writer = writer }
        case .body(let bytes):
            state.withLock { $0.writer }?.append(bytes)
        case .end:
            let writer = state.withLock { state in
                defer { state = State() }
                return state.writer
            }
            // The key stays marked until the new response is visible: a stale request in between would
            // otherwise start a second refresh.
            guard let writer else { return server.refreshFinished(entry.key) }
            let (server, key) = (server, entry.key)
            writer.commit { _ in server.refreshFinished(key) }
        case .failed(let error):
            let writer = state.withLock { state in
                defer { state = State() }
                return state.writer
            }
            writer?.discard()
            server.logUpstreamFailure(error, url: entry.url)
            server.refreshFinished(entry.key)
        }
    }
}

extension ProxyServer {
    /// Starts a background refresh of `entry`, unless one for its key is already running.
    func refreshInBackground(_ entry: StoredEntry, request: RequestHead, url: AbsoluteURL) {
        guard refreshing.withLock({ $0.insert(entry.key).inserted }) else { return }
        // A refresh may have landed between this request's look-up and now: then `entry` is no longer what is
        // stored, and refreshing it again would be a second fetch.
        let current = store?.variants(forKey: entry.key).first { $0.variant == entry.variant }
        guard let current, current.bodyID == entry.bodyID, current.responseTime == entry.responseTime else {
            return refreshFinished(entry.key)
        }
        let config = self.config
        var headers = request.headers.removingHopByHop()
        for name in ["Host", "Expect", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "Range"] {
            headers.remove(name)
        }
        for field in RFC9111.conditionalHeaders(for: entry.head) { headers.add(field.name, field.value) }
        headers.add("Via", "1.1 \(config.viaName)")
        var getRequest = request
        getRequest.method = "GET"
        let refresh = BackgroundRefresh(server: self, entry: entry, request: getRequest, requestTime: now())
        refresh.start(
            UpstreamRequest(
                method: "GET", url: url.description, headers: headers, body: .none,
                timeouts: UpstreamTimeouts(
                    connectMilliseconds: Int(config.timeouts.connectMilliseconds),
                    readSeconds: Int((config.timeouts.readMilliseconds + 999) / 1000)
                ),
                paced: false
            )
        )
    }

    func refreshFinished(_ key: String) {
        _ = refreshing.withLock { $0.remove(key) }
    }
}
