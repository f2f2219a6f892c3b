import CachePolicy
import CacheStore
import Dispatch
import Glibc
import HTTPWire

extension Exchange {
    /// A method the route caches: look the request up and follow the route's policy (RFC 9111 §4 for
    /// `standard`). `body` is the request body, when the route keys on it. With `storedBodyLost`, the stored
    /// response's body failed its checks, and the request is answered as if nothing were stored.
    func answerFromCache(
        _ url: AbsoluteURL, head: RequestHead, route: Route, store: CacheStore, body: [UInt8]? = nil, collapsed: Bool = false,
        storedBodyLost: Bool = false
    ) {
        let now = server.now()
        let key = CacheKey.derive(
            method: head.method, url: url, request: head, route: route,
            bodyDigest: body.map(Digest.sha256Hex), credentialDigest: { Digest.sha256Hex(Array($0.utf8)) }
        )
        let variants = storedBodyLost ? [] : store.variants(forKey: key)
        // The matching variant, else the newest, which the decision then finds does not match (a vary-miss).
        let entry = variants.count == 1 ? variants.first : variants.first { $0.matches(head) } ?? variants.first
        lookup = CacheLookup(key: key, url: url, route: route, entry: entry, collapsed: collapsed, requestBody: body)
        let cap = config.cache.heuristicMaxAgeSeconds
        var view = entry?.view
        if let entry { view?.facts = connection.lane.responseFacts.facts(for: entry, heuristicCap: cap) }
        let decision = PolicyDecision(
            request: head, route: route, entry: view, key: key, now: now,
            backoff: server.backoff(for: url), heuristicFreshnessCap: cap
        )
        // A local function rather than a closure value: a closure made here allocated a context holding the URL,
        // request and route (and retained each of their fields) on every look-up, hits included; this one becomes
        // a closure only where a request waits.
        @Sendable func again() {
            answerFromCache(url, head: head, route: route, store: store, body: body, collapsed: true)
        }
        switch decision {
        case .serve(let age, let ttl):
            // `entry` is non-nil for every serving decision.
            serveStored(entry!, age: age, status: .hit, field: CacheStatusField(hit: true, collapsed: collapsed, ttl: ttl))
        case .serveNotModified(let age, let ttl):
            serveNotModified(entry!, age: age, field: CacheStatusField(hit: true, collapsed: collapsed, ttl: ttl))
        case .serveStale(let age, let ttl, let reason, let refresh):
            var field = CacheStatusField(hit: true, fwd: .stale, collapsed: collapsed, ttl: ttl)
            // Served stale without asking: the origin failed moments ago and is left alone for a while.
            if reason == .error { field.detail = "origin-backoff" }
            serveStored(entry!, age: age, status: .stale, field: field)
            if refresh { server.refreshInBackground(
                    entry!, request: head, url: url, route: route, body: body, upstream: connection.lane.upstream) }
        case .fetch(let plan):
            lookup?.plan = plan
            lookup?.validating = !plan.conditionalHeaders.isEmpty
            let coalescable =
                route.options.policy.sharesFetches
                && (plan.reason == .uriMiss || plan.reason == .varyMiss || plan.reason == .stale)
            guard !collapsed, coalescable, plan.conditionalHeaders.isEmpty else {
                return fetchForCache(url, head: head, plan: plan, body: body)
            }
            // Concurrent misses for one key: one fetch, the others wait and look again (bounded).
            let lane = connection.lane
            switch server.coalescer.join(key, wake: { lane.execute { self.wakeFromCoalescing(again) } }) {
            case .leader:
                leadsFetchOf = key
                // The fetch this one would have followed may have stored its answer and left between the look-up
                // and the join: decide again on what is stored now, rather than fetch it a second time.
                if !storedBodyLost, storeChanged(since: variants, key: key, store: store) {
                    releaseFetch()
                    return again()
                }
                fetchForCache(url, head: head, plan: plan, body: body)
            case .follower:
                waitForFetch(again)
            }
        case .bypass:
            forward(to: url, head: head, route: route, bodyPrefix: body)
        case .cacheOnlyMiss(let key), .onlyIfCachedMiss(let key):
            // A fetch under way may be about to store the answer (its client can have the whole response before
            // the commit is visible): wait for it, as a miss would, before saying nothing is stored.
            if !collapsed {
                let lane = connection.lane
                if server.coalescer.follow(key, wake: { lane.execute { self.wakeFromCoalescing(again) } }) {
                    return waitForFetch(again)
                }
                // Or it stored its answer and left since the look-up.
                if !storedBodyLost, storeChanged(since: variants, key: key, store: store) { return again() }
            }
            cacheStatus = CacheStatus.miss.rawValue
            statusField = CacheStatusField(fwd: .miss, key: key)
            if case .cacheOnlyMiss = decision { return reject(.cacheOnlyMiss(key: key)) }
            reject(.onlyIfCachedMiss(key: key))
        }
    }

    /// Whether the variants stored for `key` are not the ones `seen` at the look-up (a commit landed since).
    private func storeChanged(since seen: [StoredEntry], key: String, store: CacheStore) -> Bool {
        store.variants(forKey: key).map(\.bodyID) != seen.map(\.bodyID)
    }

    /// Waits (bounded by `coalesceWait`) for the fetch this request follows, then looks again.
    private func waitForFetch(_ again: @escaping @Sendable () -> Void) {
        server.counters.recordCoalescedWait(route: routeName)
        server.metrics.recordCoalescedWait()
        waitingForFetch = true
        let wait = DispatchTimeInterval.milliseconds(Int(config.cache.coalesceWaitMilliseconds))
        connection.lane.schedule(after: wait) { self.wakeFromCoalescing(again) }
    }

    private func wakeFromCoalescing(_ again: @Sendable () -> Void) {
        guard waitingForFetch else { return }
        waitingForFetch = false
        again()
    }

    /// Freshness left, for `Cache-Status: ttl=`: the route's lifetime when its policy sets one, else the
    /// origin's (RFC 9111 §4.2.1). `directives`: the entry's `Cache-Control`, when the caller has parsed it.
    func ttl(of entry: StoredEntry, now: Int64, directives: CacheControl? = nil) -> Int64 {
        let lifetime =
            lookup?.plan?.lifetime
            ?? RFC9111.freshnessLifetime(
                of: entry.head, directives: directives ?? CacheControl(parsing: entry.head.headers),
                responseTime: entry.responseTime, heuristicCap: config.cache.heuristicMaxAgeSeconds
            ).seconds
        return lifetime - RFC9111.currentAge(of: entry.head, times: entry.times, now: now)
    }

    /// Sends a stored response, with its `Age` (RFC 9111 §4.2.3, §5.1). A body that fails its checks
    /// in the store is a miss, never served.
    func serveStored(_ entry: StoredEntry, age: Int64, status: CacheStatus, field: CacheStatusField) {
        guard let store = server.store, let lookup, let head else { return }
        let hasBody = head.method != "HEAD"
        var body: StoredBody?
        if hasBody {
            body = store.body(of: entry)
            // A newer response replaced this one since the look-up (a refresh landing): answer from that one.
            if body == nil,
                let current = store.variants(forKey: entry.key).first(where: { $0.variant == entry.variant }),
                current.bodyID != entry.bodyID
            {
                return answerFromCache(
                    lookup.url, head: head, route: lookup.route, store: store, body: lookup.requestBody, collapsed: lookup.collapsed
                )
            }
            // The body failed its checks (the store drops it): decide again as for a miss, so that `cache-only` and
            // `only-if-cached` answer 504 rather than ask the origin, and a fetch gets its policy's plan.
            if body == nil {
                return answerFromCache(
                    lookup.url, head: head, route: lookup.route, store: store, body: lookup.requestBody,
                    collapsed: lookup.collapsed, storedBodyLost: true
                )
            }
        }
        cacheStatus = status.rawValue
        statusField = field
        servedFromCache = true
        // The stored head as it was (its status line and fields written once per lane, `headPrefix`), then the fields
        // of this answer: no copy of the stored fields to edit one look-up at a time.
        let stored = entry.head
        let prefix = connection.lane.responseFacts.headPrefix(for: entry)
        var response = ResponseHeadBuilder(prefix: prefix, extraCapacity: 192)
        response.add("Age", RFC9111.ageHeaderValue(age))
        marks.write(to: &response)
        // HEAD gets the stored GET's length (RFC 9110 §9.3.2); a status without content gets none.
        let length = ResponseHead.hasBody(status: stored.status, requestMethod: "GET") ? entry.bodySize : nil
        let sendsBody = hasBody && length != nil
        sendHead(consume response, status: stored.status, contentLength: length, hasBody: sendsBody)
        switch body {
        case .bytes(let bytes) where sendsBody:
            sendBody(bytes)
        case .file(_, let size, let descriptor) where sendsBody:
            logBytes += size
            connection.sendFile(OpenFile(descriptor), length: size)
        case .file(_, _, let descriptor):
            Glibc.close(descriptor)
        case .bytes, nil:
            break
        }
        finish()
    }

    /// Fields of a stored head that every answer from the cache writes anew: its age and `X-Cache`, and the framing and
    /// connection fields, which belong to this connection. A stored `Cache-Status` stays: it is what the caches before
    /// Larder did with this response, and Larder's member follows it (RFC 9211 §2).
    static func isReplacedOnHit(_ name: String) -> Bool {
        switch name.utf8.count {
        case 3: name.equalsIgnoringASCIICase("Age")
        case 7: name.equalsIgnoringASCIICase("X-Cache")
        case 10: name.equalsIgnoringASCIICase("Connection")
        case 14: name.equalsIgnoringASCIICase("Content-Length")
        case 17: name.equalsIgnoringASCIICase("Transfer-Encoding")
        default: false
        }
    }

    /// The client's own validators match a fresh stored response: 304 (RFC 9111 §4.3.2).
    private func serveNotModified(_ entry: StoredEntry, age: Int64, field: CacheStatusField) {
        cacheStatus = CacheStatus.hit.rawValue
        statusField = field
        servedFromCache = true
        var response = ResponseHead(status: 304, headers: RFC9111.storableHeaders(entry.head))
        response.headers.remove("Content-Length")
        response.headers.set("Age", RFC9111.ageHeaderValue(age))
        marks.apply(to: &response)
        sendHead(response, bodyLength: nil, hasBody: false)
        finish()
    }

    /// The fields every response from Larder carries, as this exchange has decided them.
    var marks: ResponseMarks {
        ResponseMarks(via: settings.responseVia, xCache: cacheStatus, cacheStatus: cacheStatusValue)
    }

    private var cacheStatusValue: String {
        var field = statusField
        if field.key == nil, let shaped = shapedKey { field.key = shaped }
        return field.description
    }

    /// The key looked up, when the route's `key` options or `storeAuthorized` made it differ from the default
    /// (method and URL): `Cache-Status: key=` shows what was looked up (RFC 9211 §2.7).
    private var shapedKey: String? {
        guard let lookup, let head else { return nil }
        return CacheKey.isPrimary(request: head, route: lookup.route) ? nil : lookup.key
    }
}

extension StoredEntry {
    var times: StoredTimes { StoredTimes(requestTime: requestTime, responseTime: responseTime) }

    var view: StoredEntryView {
        StoredEntryView(response: head, times: times, requestHeaders: varyRequestHeaders)
    }

    /// Whether this variant answers `request` (RFC 9111 §4.1).
    func matches(_ request: RequestHead) -> Bool {
        VaryMatch.matches(vary: VaryMatch.fieldNames(in: head), storedRequestHeaders: varyRequestHeaders, request: request)
    }
}

/// A file descriptor closed when the last reference goes, so a client that leaves mid-body
/// cannot leak it.
final class OpenFile: @unchecked Sendable {
    let descriptor: Int32

    init(_ descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        Glibc.close(descriptor)
    }
}
