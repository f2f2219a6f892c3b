import HTTPWire

extension Exchange {
    /// Requests in origin-form are for Larder itself: its health and admin endpoints.
    func answerEndpoint(_ pathAndQuery: String) {
        let path = pathAndQuery.split(separator: "?", maxSplits: 1).first.map(String.init) ?? pathAndQuery
        url = path
        cacheStatus = "-"
        switch (head?.method, path) {
        case ("GET", "/_larder/health"), ("HEAD", "/_larder/health"):
            respond(ResponseHead.text(200, "ok\n"), body: Array("ok\n".utf8))
        default:
            reject(.notAProxyRequest(path: path))
        }
    }
}

extension ResponseHead {
    /// A small plain-text answer from Larder itself.
    static func text(_ status: Int, _ body: String, contentType: String = "text/plain; charset=utf-8") -> ResponseHead {
        ResponseHead(status: status, headers: [
            "Content-Type": contentType, "Content-Length": String(body.utf8.count), "Cache-Control": "no-store",
        ])
    }
}
