import CachePolicy
import CacheStore
import HTTPWire
import Upstream

extension Exchange {
    /// Sends a request that the cache does not answer (unsafe methods, or no store) to the origin.
    func forward(to url: AbsoluteURL, head: RequestHead) {
        cacheStatus = CacheStatus.bypass.rawValue
        statusField = CacheStatusField(fwd: head.method == "GET" || head.method == "HEAD" ? .bypass : .method)
        startTransfer(url, head: head, conditional: nil)
    }

    /// Fetches a GET or HEAD whose response may be stored, or validates a stored one (`conditional`).
    func fetchForCache(_ url: AbsoluteURL, head: RequestHead, conditional: HTTPHeaders?, reason: ForwardReason) {
        cacheStatus = (lookup?.entry != nil && reason == .stale ? CacheStatus.expired : .miss).rawValue
        statusField = CacheStatusField(fwd: reason, collapsed: lookup?.collapsed ?? false)
        startTransfer(url, head: head, conditional: conditional)
    }

    private func startTransfer(_ url: AbsoluteURL, head: RequestHead, conditional: HTTPHeaders?) {
        let config = server.config
        var headers = head.headers.removingHopByHop()
        headers.remove("Host")
        // Larder answers `Expect: 100-continue` itself once it is ready for the body.
        let expectsContinue = headers.listContains("Expect", token: "100-continue")
        headers.remove("Expect")
        if let conditional {
            // The cache validates its own entry (RFC 9111 §4.3.1); the client's validators are
            // answered from the refreshed entry afterwards.
            headers.remove("If-None-Match")
            headers.remove("If-Modified-Since")
            for field in conditional { headers.add(field.name, field.value) }
        }
        headers.add("Via", "\(head.version.major).\(head.version.minor) \(config.viaName)")

        let body: UpstreamRequest.Body
        switch framing {
        case .none: body = .none
        case .length(let length): body = .length(length)
        case .chunked: body = .streamed
        }
        let request = UpstreamRequest(
            method: head.method,
            url: url.description,
            headers: headers,
            body: body,
            timeouts: UpstreamTimeouts(
                connectMilliseconds: Int(config.timeouts.connectMilliseconds),
                readSeconds: Int((config.timeouts.readMilliseconds + 999) / 1000)
            )
        )
        if expectsContinue && body != .none && head.version == .http1_1 {
            connection.sendRaw(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        requestTime = server.now()
        upstreamStarted = .now()
        let queue = connection.lane.queue
        let tally = BodyTally()
        transfer = server.upstream.start(
            request,
            onUploadSpace: { [self] in queue.async { self.connection.resumeRequestBody() } },
            onEvent: { [self] event in queue.async { self.handle(event, url: url, head: head, tally: tally) } }
        )
    }

    private func handle(_ event: UpstreamEvent, url: AbsoluteURL, head: RequestHead, tally: BodyTally) {
        guard let transfer else { return }
        switch event {
        case .head(let origin):
            server.metrics.recordUpstreamLatency(since: upstreamStarted)
            receiveHead(origin, url: url, request: head, tally: tally)
        case .body(let bytes):
            let count = bytes.count
            writer?.append(bytes)
            sendBody(bytes, onWritten: { transfer.consumed(count) })
            tally.received += count
            // The client has the whole body and may leave before libcurl's end event arrives, which would
            // count as the client leaving mid-response and lose the stored body: the response is complete now.
            // The transfer ends by itself (its connection is kept for reuse); its `.end` finds no transfer here.
            if tally.received == tally.expected {
                self.transfer = nil
                commitStoredBody()
                finish()
            }
        case .end:
            self.transfer = nil
            commitStoredBody()
            finish()
        case .failed(let error):
            self.transfer = nil
            writer?.discard()
            writer = nil
            releaseFetch()
            if hasSentHead {
                abort("upstream-\(error.kind.rawValue)")
                return
            }
            server.logUpstreamFailure(error, url: url.description)
            // RFC 5861 §4: a stored response may stand in for an origin that cannot answer.
            if let entry = staleStandIn(request: head) {
                statusField.fwdStatus = nil
                statusField.detail = error.kind.rawValue
                return serveStale(entry, because: error.kind.rawValue)
            }
            reject(.upstream(error, url: url.description))
        }
    }

    private func receiveHead(_ origin: ResponseHead, url: AbsoluteURL, request: RequestHead, tally: BodyTally) {
        let responseTime = server.now()
        // RFC 9111 §4.3.3–4: a 304 to our validation refreshes the stored response, which is then served.
        if let lookup, lookup.validating, origin.status == 304, let entry = lookup.entry, let store = server.store {
            dropTransfer()
            var refreshed = entry
            refreshed.head = RFC9111.updatedResponse(stored: entry.head, with: origin, receivedAt: responseTime)
            refreshed.requestTime = requestTime
            refreshed.responseTime = responseTime
            store.refresh(
                key: entry.key, variant: entry.variant, head: refreshed.head,
                requestTime: requestTime, responseTime: responseTime
            )
            let age = RFC9111.currentAge(of: refreshed.head, times: refreshed.times, now: responseTime)
            let field = CacheStatusField(fwd: statusField.fwd, fwdStatus: 304, ttl: ttl(of: refreshed, now: responseTime))
            return serveStored(refreshed, age: age, status: .revalidated, field: field)
        }
        // RFC 5861 §4: an origin error may be answered with a stored response still allowed to stand in.
        if [500, 502, 503, 504].contains(origin.status), let entry = staleStandIn(request: request) {
            dropTransfer()
            statusField.fwdStatus = origin.status
            return serveStale(entry, because: "status-\(origin.status)")
        }
        if !RFC9111.safeMethods.contains(request.method), (200..<400).contains(origin.status), let store = server.store {
            // RFC 9111 §4.4: a successful unsafe request invalidates what it may have changed.
            for target in RFC9111.invalidationTargets(method: request.method, requestURL: url, response: origin) {
                store.remove(url: target.description)
            }
        }
        var response = origin
        response.headers = origin.headers.removingHopByHop()
        let hasBody = ResponseHead.hasBody(status: origin.status, requestMethod: request.method)
        var length: Int?
        if hasBody, !origin.headers.contains("Transfer-Encoding"), let text = origin.headers["Content-Length"] {
            length = Int(text)
        }
        tally.expected = length
        statusField.fwdStatus = origin.status
        if lookup != nil {
            startStoring(origin, request: request, url: url, length: length, responseTime: responseTime)
        }
        decorate(&response)
        sendHead(response, bodyLength: length, hasBody: hasBody)
    }

    /// Decides whether the response is stored (RFC 9111 §3) and, if so, tees its body into the store.
    private func startStoring(_ origin: ResponseHead, request: RequestHead, url: AbsoluteURL, length: Int?, responseTime: Int64) {
        let cacheConfig = server.config.cache
        let options = StoreOptions(
            maxObjectSize: Int(cacheConfig.maxObjectSize), heuristicFreshnessCap: cacheConfig.heuristicMaxAgeSeconds
        )
        switch RFC9111.storability(request: request, response: origin, options: options) {
        case .skip(let reason):
            statusField.detail = reason.detail
            releaseFetch()
        case .store:
            guard let store = server.store, let lookup else { return releaseFetch() }
            let vary = VaryMatch.fieldNames(in: origin)
            var varyHeaders = HTTPHeaders()
            for name in vary {
                for value in request.headers.values(name) { varyHeaders.add(name, value) }
            }
            let entry = StoredEntry(
                key: lookup.key,
                variant: VaryMatch.secondaryKey(vary: vary, request: request),
                url: url.description,
                route: routeName,
                head: ResponseHead(status: origin.status, reason: origin.reason, headers: RFC9111.storableHeaders(origin)),
                varyRequestHeaders: varyHeaders,
                requestTime: requestTime,
                responseTime: responseTime
            )
            writer = store.writer(for: entry, expectedSize: length)
            if writer == nil {
                statusField.detail = length.map { $0 > cacheConfig.maxObjectSize ? "too-large" : "store-unavailable" } ?? "store-unavailable"
                releaseFetch()
                return
            }
            statusField.stored = true
            statusField.ttl = ttl(of: entry, now: responseTime)
        }
    }

    /// Commits a fully received body; waiting requests look again once it is visible, even if this exchange's
    /// client has left meanwhile (which would otherwise release them before the commit).
    private func commitStoredBody() {
        guard let writer else { return releaseFetch() }
        self.writer = nil
        let key = leadsFetchOf
        leadsFetchOf = nil
        let coalescer = server.coalescer
        writer.commit { _ in
            if let key { coalescer.release(key) }
        }
    }

    /// The stored entry that may answer for a failed origin (RFC 5861 §4), if any.
    private func staleStandIn(request: RequestHead) -> StoredEntry? {
        guard let lookup, let entry = lookup.entry else { return nil }
        let allowed = RFC9111.staleIfErrorAllowed(
            entry: entry.view, now: server.now(), requestCacheControl: CacheControl(requestHeaders: request.headers),
            heuristicFreshnessCap: server.config.cache.heuristicMaxAgeSeconds
        )
        return allowed ? entry : nil
    }

    private func serveStale(_ entry: StoredEntry, because reason: String) {
        let now = server.now()
        var field = statusField
        field.hit = true
        field.fwd = .stale
        field.stored = false
        field.ttl = ttl(of: entry, now: now)
        if field.detail == nil { field.detail = reason }
        serveStored(entry, age: RFC9111.currentAge(of: entry.head, times: entry.times, now: now), status: .stale, field: field)
    }

    private func dropTransfer() {
        transfer?.cancel()
        transfer = nil
    }
}

/// How much of a response body with a known length has arrived. Confined to the exchange's connection queue,
/// where every upstream event is handled.
private final class BodyTally: @unchecked Sendable {
    /// The `Content-Length` being relayed; nil for chunked or close-delimited bodies and bodiless responses.
    var expected: Int?
    var received = 0
}
