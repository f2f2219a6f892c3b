import CachePolicy
import HTTPWire
import Upstream

extension Exchange {
    /// Sends the request to the origin and streams its response back, with backpressure both ways.
    func forward(to url: AbsoluteURL, head: RequestHead) {
        let config = server.config
        var headers = head.headers.removingHopByHop()
        headers.remove("Host")
        // Larder answers `Expect: 100-continue` itself once it is ready for the body.
        let expectsContinue = headers.listContains("Expect", token: "100-continue")
        headers.remove("Expect")
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
        let queue = connection.lane.queue
        transfer = server.upstream.start(
            request,
            onUploadSpace: { [self] in queue.async { self.connection.resumeRequestBody() } },
            onEvent: { [self] event in queue.async { self.handle(event, url: url, method: head.method) } }
        )
    }

    private func handle(_ event: UpstreamEvent, url: AbsoluteURL, method: String) {
        guard let transfer else { return }
        switch event {
        case .head(let origin):
            var response = origin
            response.headers = origin.headers.removingHopByHop()
            response.headers.add("Via", "1.1 \(server.config.viaName)")
            response.headers.add("X-Cache", cacheStatus)
            let hasBody = ResponseHead.hasBody(status: origin.status, requestMethod: method)
            var length: Int?
            if hasBody, !origin.headers.contains("Transfer-Encoding"), let text = origin.headers["Content-Length"] {
                length = Int(text)
            }
            sendHead(response, bodyLength: length, hasBody: hasBody)
        case .body(let bytes):
            let count = bytes.count
            sendBody(bytes, onWritten: { transfer.consumed(count) })
        case .end:
            self.transfer = nil
            finish()
        case .failed(let error):
            self.transfer = nil
            if hasSentHead {
                abort("upstream-\(error.kind.rawValue)")
            } else {
                server.logUpstreamFailure(error, url: url.description)
                reject(.upstream(error, url: url.description))
            }
        }
    }
}
