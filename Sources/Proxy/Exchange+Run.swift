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
    /// 4. GET and HEAD go through the cache (`Exchange+Cache.swift`): served from it, validated, or
    ///    fetched and stored while streaming to the client (`Exchange+Forward.swift`).
    /// 5. Other methods go to the origin; a success invalidates what they may have changed (RFC 9111 §4.4).
    func run() {
        guard let head else { return }
        let config = server.config
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
            // 4. The cache, for the methods it may answer.
            if let store = server.store, head.method == "GET" || head.method == "HEAD" {
                return answerFromCache(absolute, head: head, store: store)
            }
            // 5. Everything else goes to the origin.
            forward(to: absolute, head: head)
        }
    }

    /// Why forwarding this request would come back to Larder, or nil.
    private func loopReason(_ url: AbsoluteURL, head: RequestHead) -> String? {
        let name = server.config.viaName
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
