import CachePolicy
import HTTPWire
import Upstream

extension Exchange {
    /// The life of a request, in order. Read this first.
    ///
    /// 1. Only allowed clients, and only while under the connection limit.
    /// 2. The request target decides the kind of request: Larder's own endpoints (origin-form),
    ///    a tunnel (CONNECT), or a proxied URL (absolute-form).
    /// 3. A proxied URL is checked for loops; `PURGE` removes it from the cache.
    /// 4. The first route that matches (`config.routes`) decides the policy.
    /// 5. Methods the route caches (GET and HEAD; body-keyed POSTs) go through the cache
    ///    (`Exchange+Cache.swift`): served from it, validated, or fetched and stored while streaming
    ///    to the client (`Exchange+Forward.swift`).
    /// 6. Other methods go to the origin; a success invalidates what they may have changed (RFC 9111
    ///    §4.4). On a queue route, a write whose origin cannot be reached is kept for replay
    ///    (`Exchange+Queue.swift`).
    func run() {
        guard let head else { return }
        // Logged as sent until the target is understood, so even a refused request names what it asked for.
        url = head.target

        // 1. Who may use the proxy.
        guard let peer = connection.peer, config.allow.contains(where: { $0.contains(peer) }) else {
            return reject(.clientForbidden(address: connection.peer?.description ?? "unknown"))
        }
        guard !server.isOverConnectionLimit(connection) else { return reject(.tooManyConnections) }

        // 2. What is asked for.
        let target: RequestTarget
        do {
            target = try RequestTarget(parsing: head.target, method: head.method)
        } catch {
            return reject(.malformed(error))
        }
        switch target {
        case .origin(let pathAndQuery):
            return answerEndpoint(pathAndQuery)
        case .asterisk:
            return reject(.notAProxyRequest(path: "*"))
        case .authority(let host, let port):
            return openTunnel(host: host, port: port)
        case .absolute(let absolute):
            url = absolute.description
            // 3. Loops: our own Via coming back, or a URL naming Larder itself (RFC 9110 §7.6.3).
            if let loop = loopReason(absolute, head: head) { return reject(.loopDetected(reason: loop)) }
            // 3. PURGE, as Squid and Varnish users expect.
            if head.method == "PURGE" { return purge(url: absolute.description) }
            // 4. The route.
            let route = config.routes.route(for: head, url: absolute)
            routeName = route.name
            // 5. The cache, for the methods the route lets it answer.
            if let store = server.store, route.options.policy != .networkOnly,
                route.options.caches(method: head.method, match: route.match)
            {
                guard route.needsBodyDigest(method: head.method) else {
                    return answerFromCache(absolute, head: head, route: route, store: store)
                }
                return collectBody(
                    limit: Self.keyedBodyLimit,
                    onComplete: { body in
                        self.answerFromCache(absolute, head: head, route: route, store: store, body: body)
                    },
                    onOverflow: { prefix in self.forward(to: absolute, head: head, route: route, bodyPrefix: prefix) }
                )
            }
            // 6. Everything else goes to the origin, or waits in the offline queue.
            if route.options.queue, server.replayQueue != nil, !RFC9111.safeMethods.contains(head.method) {
                return collectBody(
                    limit: Int(config.queue.maxBodySize),
                    onComplete: { body in self.forwardQueueable(to: absolute, head: head, route: route, body: body) },
                    onOverflow: { prefix in self.forward(to: absolute, head: head, route: route, bodyPrefix: prefix) }
                )
            }
            forward(to: absolute, head: head, route: route)
        }
    }

    /// The largest request body hashed into a cache key; larger requests go to the origin uncached.
    static let keyedBodyLimit = 1 << 20

    /// Why forwarding this request would come back to Larder, or nil.
    private func loopReason(_ url: AbsoluteURL, head: RequestHead) -> String? {
        let name = config.viaName
        for entry in head.headers.listElements("Via") {
            let parts = entry.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if parts.count >= 2, String(parts[1]).equalsIgnoringASCIICase(name) {
                return "the request already passed through \(name)"
            }
        }
        if server.isOwnAddress(host: url.host, port: url.port) {
            return "\(url.authority) is this proxy's own address"
        }
        return nil
    }
}
