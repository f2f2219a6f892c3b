import CachePolicy
import CacheStore
import HTTPWire
import Synchronization
import Upstream

extension Exchange {
    /// How the request body reaches the origin.
    enum Upload {
        /// As the client frames it, streamed.
        case streamed
        /// Already gathered whole.
        case whole([UInt8])
        /// The first bytes were gathered (past a collecting limit); the rest streams as it arrives.
        case prefixThenStreamed([UInt8])
    }

    /// Sends a request the cache does not answer to the origin (`X-Cache: BYPASS`).
    func forward(to url: AbsoluteURL, head: RequestHead, route: Route, bodyPrefix: [UInt8]? = nil) {
        cacheStatus = CacheStatus.bypass.rawValue
        let cacheable = route.options.caches(method: head.method, match: route.match)
        statusField = CacheStatusField(fwd: cacheable ? .bypass : .method)
        let upload: Upload = bodyPrefix.map { requestComplete ? .whole($0) : .prefixThenStreamed($0) } ?? .streamed
        startTransfer(url, head: head, route: route, conditional: [:], upload: upload)
    }

    /// Fetches a request the route caches: a miss, a refresh, or a validation of the stored entry
    /// (`plan.conditionalHeaders`).
    func fetchForCache(_ url: AbsoluteURL, head: RequestHead, plan: FetchPlan, body: [UInt8]?) {
        cacheStatus = (lookup?.entry != nil && plan.reason == .stale ? CacheStatus.expired : .miss).rawValue
        statusField = CacheStatusField(fwd: plan.reason, collapsed: lookup?.collapsed ?? false)
        let route = lookup?.route ?? config.routes.defaults
        startTransfer(url, head: head, route: route, conditional: plan.conditionalHeaders, upload: body.map { .whole($0) } ?? .streamed)
    }

    private func startTransfer(_ url: AbsoluteURL, head: RequestHead, route: Route, conditional: HTTPHeaders, upload: Upload) {
        // One pass, one copy of the client's fields. `Host` comes from the URL; Larder answers `Expect: 100-continue`
        // itself once it is ready for the body; when the cache validates its own entry (RFC 9111 §4.3.1), the
        // client's validators are answered from the refreshed entry afterwards.
        let validates = !conditional.isEmpty
        var headers = head.headers.removingHopByHop(andFieldsWhere: { name in
            name.equalsIgnoringASCIICase("Host") || name.equalsIgnoringASCIICase("Expect")
                || (validates
                    && (name.equalsIgnoringASCIICase("If-None-Match") || name.equalsIgnoringASCIICase("If-Modified-Since")))
        })
        for field in conditional { headers.add(field.name, field.value) }
        headers.add("Via", "\(head.version.major).\(head.version.minor) \(config.viaName)")

        let body: UpstreamRequest.Body
        switch (upload, framing) {
        case (.whole(let bytes), _): body = bytes.isEmpty && framing == .none ? .none : .bytes(bytes)
        case (_, .none): body = .none
        case (_, .length(let length)): body = .length(length)
        case (_, .chunked): body = .streamed
        }
        let readMilliseconds = route.options.timeoutMilliseconds ?? config.timeouts.readMilliseconds
        let request = UpstreamRequest(
            method: head.method,
            url: url.description,
            headers: headers,
            body: body,
            timeouts: UpstreamTimeouts(
                connectMilliseconds: Int(config.timeouts.connectMilliseconds),
                readSeconds: Int((readMilliseconds + 999) / 1000)
            )
        )
        if case .streamed = upload { sendContinueIfExpected() }
        requestTime = server.now()
        upstreamStarted = .now()
        let lane = connection.lane
        let tally = BodyTally()
        // Only a body relayed as it arrives ever waits for room (and the closure is an allocation per request).
        var onUploadSpace: (@Sendable () -> Void)?
        if body.isRelayed { onUploadSpace = { [self] in lane.execute { self.connection.resumeRequestBody() } } }
        // The lane's own client calls back on this lane's thread, from inside libcurl, which nothing here calls
        // into directly (the transfer's methods only queue commands), so the events are handled right there instead
        // of as one more task per event.
        transfer = lane.upstream.start(
            request,
            onUploadSpace: onUploadSpace,
            onEvent: { [self] event in
                if lane.isCurrent { return handle(event, url: url, head: head, tally: tally) }
                lane.execute { self.handle(event, url: url, head: head, tally: tally) }
            }
        )
        activeTally = tally
        if case .prefixThenStreamed(let prefix) = upload {
            transfer?.sendBody(prefix)
            if requestComplete { transfer?.finishBody() }
        }
    }

    private func handle(_ event: UpstreamEvent, url: AbsoluteURL, head: RequestHead, tally: BodyTally) {
        // Events already queued from a transfer this exchange dropped (a stand-in served, which may have started a
        // new fetch) belong to no response any more.
        guard let transfer, tally === activeTally else { return }
        switch event {
        case .head(let origin):
            server.metrics.recordUpstreamLatency(since: upstreamStarted)
            receiveHead(origin, url: url, request: head, tally: tally)
        case .body(let bytes):
            let count = bytes.count
            // libcurl hears a piece is consumed once the client and the store (when storing) have both taken it:
            // the origin is paced by the slower of the two, so memory stays bounded and a disk that falls behind
            // slows the transfer instead of making the store drop the body.
            let taken = Countdown(writer == nil ? 1 : 2) { transfer.consumed(count) }
            writer?.append(bytes, onWritten: { taken.signal() })
            tally.received += count
            if held != nil {
                held!.body.append(contentsOf: bytes)  // checked just above
                taken.signal()
                if held!.body.count > Self.heldBodyLimit { releaseHeldResponse(storeVerdict: nil) }
            } else {
                sendBody(bytes, onWritten: { taken.signal() })
            }
            // The client has the whole body and may leave before libcurl's end event arrives, which would
            // count as the client leaving mid-response and lose the stored body: the response is complete now.
            // The transfer ends by itself (its connection is kept for reuse); its `.end` finds no transfer here.
            if tally.received == tally.expected { completeResponse() }
        case .end:
            completeResponse()
        case .failed(let error):
            self.transfer = nil
            writer?.discard()
            writer = nil
            held = nil
            releaseFetch()
            if hasSentHead {
                abort("upstream-\(error.kind.rawValue)")
                return
            }
            server.logUpstreamFailure(error, url: url.description)
            server.recordOriginFailure(url)
            // RFC 5861 §4 and the route's staleIfError: a stored response may stand in for a failed origin.
            if serveStandIn(detail: error.kind.rawValue) { return }
            // A write on a queue route whose origin cannot be reached waits in the offline queue.
            if error.isUnreachable || error.kind == .connectionTimeout, let body = queueableBody {
                return enqueue(url: url, head: head, body: body, error: error)
            }
            reject(.upstream(error, url: url.description))
        }
    }

    private func completeResponse() {
        transfer = nil
        if held != nil {
            let verdict = lookup?.route.options.storeIf.acceptsBody(held!.body) ?? false  // checked just above
            releaseHeldResponse(storeVerdict: verdict)
        }
        commitStoredBody()
        finish()
    }

    private func receiveHead(_ origin: ResponseHead, url: AbsoluteURL, request: RequestHead, tally: BodyTally) {
        let responseTime = server.now()
        if ErrorBackoff.isFailure(status: origin.status) {
            server.recordOriginFailure(url)
        } else {
            server.recordOriginSuccess(url)
        }
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
            releaseFetch()
            return serveStored(refreshed, age: age, status: .revalidated, field: field)
        }
        // An origin error may be answered with a stored response still allowed to stand in.
        if ErrorBackoff.isFailure(status: origin.status) {
            statusField.fwdStatus = origin.status
            if serveStandIn(detail: "status-\(origin.status)") { return }
        }
        if !RFC9111.safeMethods.contains(request.method), (200..<400).contains(origin.status), let store = server.store,
            lookup == nil
        {
            // RFC 9111 §4.4: a successful unsafe request invalidates what it may have changed. (A body-keyed
            // POST the route caches changes nothing: it is a query.)
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
            startStoring(
                origin, relayedHeaders: response.headers, request: request, url: url, length: length,
                responseTime: responseTime)
        }
        if writer != nil, lookup?.route.options.storeIf.checksBody == true, hasBody {
            // `storeIf.json` judges the whole body, and Cache-Status must say whether it was stored: hold the
            // response until it is complete (bounded; JSON API answers are small).
            held = HeldResponse(head: response, hasBody: hasBody)
            return
        }
        // Larder's fields go straight into the written head: added to `response`, they would copy the fields
        // the stored entry shares.
        sendHead(response, bodyLength: length, hasBody: hasBody, marks: marks)
    }

    /// The largest response held back for a `storeIf.json` check; a larger one is sent on unstored.
    static let heldBodyLimit = 8 << 20

    /// Sends a held response: stored when the body passed `storeIf` (`storeVerdict`), or not stored
    /// (`false`: failed the check; nil: too large to check).
    private func releaseHeldResponse(storeVerdict: Bool?) {
        guard var response = held?.head, let body = held?.body, let hasBody = held?.hasBody else { return }
        held = nil
        if storeVerdict != true {
            writer?.discard()
            writer = nil
            releaseFetch()
            statusField.stored = false
            statusField.ttl = nil
            statusField.detail = storeVerdict == false ? SkipReason.storeIf.detail : "too-large"
        }
        marks.apply(to: &response)
        if storeVerdict == nil {
            // Still streaming: the rest follows as it arrives.
            sendHead(response, bodyLength: nil, hasBody: hasBody)
            sendBody(body)
            return
        }
        sendHead(response, bodyLength: body.count, hasBody: hasBody)
        sendBody(body)
    }

    /// Decides whether the response is stored (RFC 9111 §3 and the route's rules) and, if so, tees its
    /// body into the store. `relayedHeaders` are the origin's without its hop-by-hop fields, as relayed to the client.
    private func startStoring(
        _ origin: ResponseHead, relayedHeaders: HTTPHeaders, request: RequestHead, url: AbsoluteURL, length: Int?,
        responseTime: Int64
    ) {
        let cacheConfig = config.cache
        guard let lookup else { return releaseFetch() }
        // Parsed once for the decision and for the stored response's ttl.
        let directives = CacheControl(parsing: origin.headers)
        switch lookup.route.storability(
            request: request, response: origin, maxObjectSize: Int(cacheConfig.maxObjectSize),
            heuristicFreshnessCap: cacheConfig.heuristicMaxAgeSeconds, responseDirectives: directives
        ) {
        case .skip(let reason):
            statusField.detail = reason.detail
            releaseFetch()
        case .store:
            guard let store = server.store else { return releaseFetch() }
            let entry = StoredEntry.from(
                origin, relayedHeaders: relayedHeaders, request: request, key: lookup.key, url: url, route: routeName,
                requestTime: requestTime, responseTime: responseTime
            )
            writer = store.writer(for: entry, expectedSize: length)
            if writer == nil {
                statusField.detail = length.map { $0 > cacheConfig.maxObjectSize ? "too-large" : "store-unavailable" } ?? "store-unavailable"
                releaseFetch()
                return
            }
            statusField.stored = true
            statusField.ttl = ttl(of: entry, now: responseTime, directives: directives)
        }
    }

    /// Commits a fully received body; waiting requests look again once it is visible (a small body at once, from
    /// the memory tier), even if this exchange's client has left meanwhile (which would otherwise release them
    /// before the commit).
    private func commitStoredBody() {
        guard let writer else { return releaseFetch() }
        self.writer = nil
        let key = leadsFetchOf
        leadsFetchOf = nil
        let coalescer = server.coalescer
        writer.commit(onVisible: {
            if let key { coalescer.release(key) }
        })
    }

    /// Serves the stored entry in place of a failed origin, when the plan allows it; returns whether it did. The
    /// failed transfer is dropped and waiting requests released first: a stored body found damaged turns the answer
    /// into a new fetch, whose transfer and coalescing are its own.
    private func serveStandIn(detail: String) -> Bool {
        guard let lookup, let plan = lookup.plan, let entry = lookup.entry else { return false }
        let now = server.now()
        guard case .serveStale(let age, let ttl, _, _)? = plan.standIn(
            entry.view, now: now, heuristicFreshnessCap: config.cache.heuristicMaxAgeSeconds
        ) else { return false }
        var field = statusField
        field.hit = true
        field.fwd = .stale
        field.stored = false
        field.ttl = ttl
        field.detail = detail
        dropTransfer()
        releaseFetch()
        serveStored(entry, age: age, status: .stale, field: field)
        return true
    }

    private func dropTransfer() {
        transfer?.cancel()
        transfer = nil
    }
}

/// A response held back until its body is complete (for `storeIf.json`).
struct HeldResponse {
    var head: ResponseHead
    var hasBody: Bool
    var body: [UInt8] = []
}

extension StoredEntry {
    /// What is stored for a response: its storable fields (RFC 9111 §3.1), and the request's values of the
    /// fields its `Vary` names (§4.1). The storable fields are taken from `relayedHeaders`, the origin's already
    /// without their hop-by-hop ones: the store shares that array unless a `Proxy-*` field must go, instead of
    /// filtering the origin's fields a second time into an array of its own.
    static func from(
        _ origin: ResponseHead, relayedHeaders: HTTPHeaders, request: RequestHead, key: String, url: AbsoluteURL,
        route: String,
        requestTime: Int64, responseTime: Int64
    ) -> StoredEntry {
        let vary = VaryMatch.fieldNames(in: origin)
        var varyHeaders = HTTPHeaders()
        for name in vary {
            for value in request.headers.values(name) { varyHeaders.add(name, value) }
        }
        return StoredEntry(
            key: key,
            variant: VaryMatch.secondaryKey(vary: vary, request: request),
            url: url.description,
            route: route,
            head: ResponseHead(status: origin.status, reason: origin.reason, headers: RFC9111.storableHeaders(relayedHeaders)),
            varyRequestHeaders: varyHeaders,
            requestTime: requestTime,
            responseTime: responseTime
        )
    }
}

/// How much of a response body with a known length has arrived. One per transfer: its identity tells the current
/// transfer's events from those of one the exchange dropped (the exchange keeps the current one as `activeTally`).
/// Compared by identity rather than through a weak reference to the transfer, which cost an allocation per miss for
/// the reference's side table. Confined to the exchange's lane, where every upstream event is handled.
final class BodyTally: @unchecked Sendable {
    /// The `Content-Length` being relayed; nil for chunked or close-delimited bodies and bodiless responses.
    var expected: Int?
    var received = 0
}

/// Runs `action` once `count` signals have arrived, from any threads.
private final class Countdown: Sendable {
    private let remaining: Atomic<Int>
    private let action: @Sendable () -> Void

    init(_ count: Int, action: @escaping @Sendable () -> Void) {
        remaining = Atomic(count)
        self.action = action
    }

    func signal() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { action() }
    }
}
