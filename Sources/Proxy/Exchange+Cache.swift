import CachePolicy
import CacheStore
import Dispatch
import Glibc
import HTTPWire

extension Exchange {
    /// GET and HEAD: look the request up and follow RFC 9111's plan (RFC 9111 §4).
    func answerFromCache(_ url: AbsoluteURL, head: RequestHead, store: CacheStore, collapsed: Bool = false) {
        let config = server.config
        let now = server.now()
        let key = CacheKey.primary(method: head.method, url: url)
        let variants = store.variants(forKey: key)
        let entry = variants.first { $0.matches(head) } ?? variants.first
        lookup = CacheLookup(key: key, url: url, entry: entry, now: now, collapsed: collapsed)
        let plan = RFC9111.plan(
            request: head, entry: entry?.view, now: now, heuristicFreshnessCap: config.cache.heuristicMaxAgeSeconds
        )
        switch plan {
        case .serve(let age, let ttl):
            // `entry` is non-nil for every serving plan.
            serveStored(entry!, age: age, status: .hit, field: CacheStatusField(hit: true, collapsed: collapsed, ttl: ttl))
        case .serveNotModified(let age, let ttl):
            serveNotModified(entry!, age: age, field: CacheStatusField(hit: true, collapsed: collapsed, ttl: ttl))
        case .serveStale(let age, let reason):
            serveStored(entry!, age: age, status: .stale, field: CacheStatusField(hit: true, fwd: .stale, collapsed: collapsed, ttl: ttl(of: entry!, now: now)))
            if reason == .whileRevalidate { server.refreshInBackground(entry!, request: head, url: url) }
        case .revalidate(let conditional, _, let reason):
            lookup?.validating = true
            fetchForCache(url, head: head, conditional: conditional, reason: reason)
        case .forward(let reason):
            guard !collapsed, reason == .uriMiss || reason == .varyMiss || reason == .stale else {
                return fetchForCache(url, head: head, conditional: nil, reason: reason)
            }
            // Concurrent misses for one key: one fetch, the others wait and look again (bounded).
            let queue = connection.lane.queue
            let role = server.coalescer.join(key) { queue.async { self.wakeFromCoalescing(url, head: head, store: store) } }
            switch role {
            case .leader:
                leadsFetchOf = key
                fetchForCache(url, head: head, conditional: nil, reason: reason)
            case .follower:
                waitForFetch(url, head: head, store: store)
            }
        case .onlyIfCachedMiss:
            // A fetch under way may be about to store the answer (its client can have the whole response before
            // the commit is visible): wait for it, as a miss would, before saying nothing is stored.
            if !collapsed {
                let queue = connection.lane.queue
                let following = server.coalescer.follow(key) {
                    queue.async { self.wakeFromCoalescing(url, head: head, store: store) }
                }
                if following { return waitForFetch(url, head: head, store: store) }
            }
            cacheStatus = CacheStatus.miss.rawValue
            reject(.onlyIfCachedMiss(key: key))
        }
    }

    /// Waits (bounded by `coalesceWait`) for the fetch this request follows, then looks again.
    private func waitForFetch(_ url: AbsoluteURL, head: RequestHead, store: CacheStore) {
        server.counters.recordCoalescedWait(route: routeName)
        server.metrics.recordCoalescedWait()
        waitingForFetch = true
        let wait = DispatchTimeInterval.milliseconds(Int(server.config.cache.coalesceWaitMilliseconds))
        connection.lane.queue.asyncAfter(deadline: .now() + wait) { self.wakeFromCoalescing(url, head: head, store: store) }
    }

    private func wakeFromCoalescing(_ url: AbsoluteURL, head: RequestHead, store: CacheStore) {
        guard waitingForFetch else { return }
        waitingForFetch = false
        answerFromCache(url, head: head, store: store, collapsed: true)
    }

    func ttl(of entry: StoredEntry, now: Int64) -> Int64 {
        let lifetime = RFC9111.freshnessLifetime(
            of: entry.head, responseTime: entry.responseTime, heuristicCap: server.config.cache.heuristicMaxAgeSeconds
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
                return answerFromCache(lookup.url, head: head, store: store, collapsed: lookup.collapsed)
            }
            if body == nil {
                self.lookup?.entry = nil
                return fetchForCache(lookup.url, head: head, conditional: nil, reason: .uriMiss)
            }
        }
        cacheStatus = status.rawValue
        statusField = field
        servedFromCache = true
        var response = entry.head
        response.headers.set("Age", RFC9111.ageHeaderValue(age))
        decorate(&response)
        sendHead(response, bodyLength: entry.bodySize, hasBody: hasBody)
        switch body {
        case .bytes(let bytes):
            sendBody(bytes)
            finish()
        case .file(_, let size, let descriptor):
            streamFile(OpenFile(descriptor), offset: 0, size: size)
        case nil:
            finish()
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
        decorate(&response)
        sendHead(response, bodyLength: nil, hasBody: false)
        finish()
    }

    /// Streams a large stored body from its file, a few chunks ahead of the socket; the socket's
    /// progress pulls the rest.
    private func streamFile(_ file: OpenFile, offset: Int, size: Int) {
        let chunkSize = 256 * 1024
        var offset = offset
        while offset < size {
            guard connection.phase == .inExchange else { return }
            var chunk = [UInt8](repeating: 0, count: min(chunkSize, size - offset))
            let count = chunk.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            guard count > 0 else { return abort("cache-read-failed") }
            if count < chunk.count { chunk.removeSubrange(count...) }
            offset += count
            if offset < size && connection.pendingOutputBytes + count >= 2 * chunkSize {
                let queue = connection.lane.queue
                let resumeAt = offset
                sendBody(chunk) { queue.async { self.streamFile(file, offset: resumeAt, size: size) } }
                return
            }
            sendBody(chunk)
        }
        finish()
    }

    /// Adds the fields every response from Larder carries: `Via`, `X-Cache`, `Cache-Status`.
    func decorate(_ response: inout ResponseHead) {
        response.headers.add("Via", "1.1 \(server.config.viaName)")
        response.headers.set("X-Cache", cacheStatus)
        response.headers.set("Cache-Status", statusField.description)
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
