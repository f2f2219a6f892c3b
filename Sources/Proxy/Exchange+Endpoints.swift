import CachePolicy
import HTTPWire

extension Exchange {
    /// Requests in origin-form are for Larder itself: its health and admin endpoints.
    func answerEndpoint(_ pathAndQuery: String) {
        let parts = pathAndQuery.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts.first ?? "")
        let query = parts.count > 1 ? QueryString(String(parts[1])) : QueryString("")
        url = path
        cacheStatus = "-"
        if path != "/_larder/health", !adminAuthorized { return reject(.adminUnauthorized) }
        switch (head?.method, path) {
        case ("GET", "/_larder/health"), ("HEAD", "/_larder/health"):
            respond(ResponseHead.text(200, "ok\n"), body: Array("ok\n".utf8))
        case ("GET", "/_larder/stats"):
            let body = Array(server.statsJSON().utf8)
            respond(ResponseHead.text(200, "", contentType: "application/json", length: body.count), body: body)
        case ("GET", "/_larder/metrics"):
            let body = Array((server.metricsExporter?() ?? "").utf8)
            respond(ResponseHead.text(200, "", contentType: "text/plain; version=0.0.4; charset=utf-8", length: body.count), body: body)
        case ("GET", "/_larder/entries"):
            let limit = query["limit"].flatMap { Int($0) } ?? 100
            let body = Array(server.entriesJSON(prefix: query["prefix"], limit: min(max(limit, 1), 10_000)).utf8)
            respond(ResponseHead.text(200, "", contentType: "application/json", length: body.count), body: body)
        case ("DELETE", "/_larder/cache"):
            if let route = query["route"] {
                let removed = server.store?.remove(route: route) ?? 0
                let body = Array("{\"purged\":\(removed),\"route\":\(JSONText.quote(route))}\n".utf8)
                respond(ResponseHead.text(200, "", contentType: "application/json", length: body.count), body: body)
            } else if let target = query["url"] {
                guard let absolute = AbsoluteURL(string: target) else {
                    return reject(.malformed(.badTarget("url=\(target) is not an absolute http(s) URL")))
                }
                purge(url: absolute.description)
            } else {
                let removed = server.store?.removeAll() ?? 0
                let body = Array("{\"purged\":\(removed)}\n".utf8)
                respond(ResponseHead.text(200, "", contentType: "application/json", length: body.count), body: body)
            }
        case ("GET", "/_larder/queue"):
            respondJSON(server.queueJSON())
        case ("POST", "/_larder/queue/retry"):
            let retried = server.replayQueue?.retry(id: query["id"]) ?? 0
            respondJSON("{\"retried\":\(retried)}\n")
        case ("GET", _) where path.hasPrefix("/_larder/queue/"):
            let id = String(path.dropFirst("/_larder/queue/".count))
            guard let json = server.queuedRequestJSON(id: id) else {
                return respondJSON("{\"found\":false,\"id\":\(JSONText.quote(id))}\n", status: 404)
            }
            respondJSON(json)
        case ("DELETE", _) where path.hasPrefix("/_larder/queue/"):
            let id = String(path.dropFirst("/_larder/queue/".count))
            let dropped = server.replayQueue?.drop(id: id) ?? false
            respondJSON("{\"dropped\":\(dropped),\"id\":\(JSONText.quote(id))}\n", status: dropped ? 200 : 404)
        default:
            reject(.notAProxyRequest(path: path))
        }
    }

    /// With `admin.token` set, only requests bearing it may use the admin endpoints and PURGE.
    var adminAuthorized: Bool {
        guard let token = config.adminToken else { return true }
        guard let given = head?.headers["Authorization"], given.hasPrefix("Bearer ") else { return false }
        return ConstantTime.equal(Array(given.utf8.dropFirst(7)), Array(token.utf8))
    }

    func respondJSON(_ text: String, status: Int = 200) {
        let body = Array(text.utf8)
        respond(ResponseHead.text(status, "", contentType: "application/json", length: body.count), body: body)
    }

    /// Removes every stored variant of `url`: 200 with the count, or 404 when nothing was stored
    /// (as Squid answers `PURGE`).
    func purge(url: String) {
        self.url = url
        cacheStatus = "-"
        guard adminAuthorized else { return reject(.adminUnauthorized) }
        let removed = server.store?.remove(url: url) ?? 0
        let body = Array("{\"purged\":\(removed),\"url\":\(JSONText.quote(url))}\n".utf8)
        respond(ResponseHead.text(removed > 0 ? 200 : 404, "", contentType: "application/json", length: body.count), body: body)
    }
}

extension ResponseHead {
    /// A small answer from Larder itself.
    static func text(_ status: Int, _ body: String, contentType: String = "text/plain; charset=utf-8", length: Int? = nil) -> ResponseHead {
        ResponseHead(status: status, headers: [
            "Content-Type": contentType, "Content-Length": String(length ?? body.utf8.count), "Cache-Control": "no-store",
        ])
    }
}

/// `a=1&b=2` with percent-decoding, for the admin endpoints.
struct QueryString {
    private var pairs: [(String, String)] = []

    init(_ text: String) {
        for part in text.split(separator: "&") {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = QueryString.decode(String(pieces[0]))
            pairs.append((name, pieces.count > 1 ? QueryString.decode(String(pieces[1])) : ""))
        }
    }

    subscript(name: String) -> String? { pairs.first { $0.0 == name }?.1 }

    static func decode(_ text: String) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Comparisons whose time does not depend on where the inputs differ, for secrets.
enum ConstantTime {
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
