import CachePolicy
import CacheStore
import HTTPWire
import Synchronization
import Upstream

/// Refreshes one stored response while stale copies are being served (RFC 5861 §3), without a
/// client waiting. Events arrive on the thread of the lane that started it, one at a time, so its state needs no
/// queue of its own; the mutex only makes that visible to the compiler.
final class BackgroundRefresh: Sendable {
    private struct State {
        var writer: CacheWriter?
        /// The body so far, when the route's `storeIf.json` must judge it before it is stored.
        var checkedBody: [UInt8]?
    }

    private let server: ProxyServer
    private let entry: StoredEntry
    private let request: RequestHead
    private let route: Route
    private let url: AbsoluteURL
    private let requestTime: Int64
    private let state = Mutex(State())

    init(server: ProxyServer, entry: StoredEntry, request: RequestHead, route: Route, url: AbsoluteURL, requestTime: Int64) {
        self.server = server
        self.entry = entry
        self.request = request
        self.route = route
        self.url = url
        self.requestTime = requestTime
    }

    func start(_ upstreamRequest: UpstreamRequest, on upstream: UpstreamClient) {
        upstream.start(upstreamRequest) { event in self.handle(event) }
    }

    private func handle(_ event: UpstreamEvent) {
        guard let store = server.store else { return }
        switch event {
        case .head(let origin):
            let now = server.now()
            if ErrorBackoff.isFailure(status: origin.status) {
                server.recordOriginFailure(url)
            } else {
                server.recordOriginSuccess(url)
            }
            if origin.status == 304 {
                let head = RFC9111.updatedResponse(stored: entry.head, with: origin, receivedAt: now)
                store.refresh(key: entry.key, variant: entry.variant, head: head, requestTime: requestTime, responseTime: now)
                return
            }
            let config = server.config.cache
            let decision = route.storability(
                request: request, response: origin, maxObjectSize: Int(config.maxObjectSize),
                heuristicFreshnessCap: config.heuristicMaxAgeSeconds
            )
            guard decision == .store else { return }
            var fresh = entry
            fresh.head = ResponseHead(status: origin.status, reason: origin.reason, headers: RFC9111.storableHeaders(origin))
            fresh.requestTime = requestTime
            fresh.responseTime = now
            let length = origin.headers["Content-Length"].flatMap { Int($0) }
            let writer = store.writer(for: fresh, expectedSize: length)
            let checksBody = route.options.storeIf.checksBody
            state.withLock {
                $0.writer = writer
                $0.checkedBody = checksBody ? [] : nil
            }
        case .body(let bytes):
            let writer = state.withLock { state -> CacheWriter? in
                state.checkedBody?.append(contentsOf: bytes)
                if (state.checkedBody?.count ?? 0) > Exchange.heldBodyLimit {
                    state.writer?.discard()
                    state.writer = nil
                    state.checkedBody = nil
                }
                return state.writer
            }
            writer?.append(bytes)
        case .end:
            let (finished, checkedBody) = state.withLock { state in
                defer { state = State() }
                return (state.writer, state.checkedBody)
            }
            var writer = finished
            if let checkedBody, !route.options.storeIf.acceptsBody(checkedBody) {
                writer?.discard()
                writer = nil
            }
            // The key stays marked until the new response is visible: a stale request in between would
            // otherwise start a second refresh.
            guard let writer else { return server.refreshFinished(entry.key) }
            let (server, key) = (server, entry.key)
            writer.commit(onVisible: { server.refreshFinished(key) })
        case .failed(let error):
            let writer = state.withLock { state in
                defer { state = State() }
                return state.writer
            }
            writer?.discard()
            server.recordOriginFailure(url)
            server.logUpstreamFailure(error, url: entry.url)
            server.refreshFinished(entry.key)
        }
    }
}

extension ProxyServer {
    /// Starts a background refresh of `entry` on `upstream` (the client of the lane asking), unless one for its key
    /// is already running.
    func refreshInBackground(
        _ entry: StoredEntry, request: RequestHead, url: AbsoluteURL, route: Route, body: [UInt8]?,
        upstream: UpstreamClient
    ) {
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
        // A HEAD is refreshed with the GET it is answered from; a body-keyed request with its own body.
        var refreshed = request
        if refreshed.method == "HEAD" { refreshed.method = "GET" }
        let refresh = BackgroundRefresh(server: self, entry: entry, request: refreshed, route: route, url: url, requestTime: now())
        refresh.start(
            UpstreamRequest(
                method: refreshed.method, url: url.description, headers: headers, body: body.map { .bytes($0) } ?? .none,
                timeouts: UpstreamTimeouts(
                    connectMilliseconds: Int(config.timeouts.connectMilliseconds),
                    readSeconds: Int(((route.options.timeoutMilliseconds ?? config.timeouts.readMilliseconds) + 999) / 1000)
                ),
                paced: false
            ),
            on: upstream
        )
    }

    func refreshFinished(_ key: String) {
        _ = refreshing.withLock { $0.remove(key) }
    }
}
