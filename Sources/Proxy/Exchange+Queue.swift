import CachePolicy
import HTTPWire
import ReplayQueue
import Upstream

extension Exchange {
    /// A write on a queue route: sent at once, and kept for replay if its origin cannot be reached.
    func forwardQueueable(to url: AbsoluteURL, head: RequestHead, route: Route, body: [UInt8]) {
        queueableBody = body
        forward(to: url, head: head, route: route, bodyPrefix: body)
    }

    /// Keeps the request in the offline queue and answers `202 Accepted` with its id and position.
    func enqueue(url: AbsoluteURL, head: RequestHead, body: [UInt8], error: UpstreamError) {
        guard let queue = server.replayQueue else { return reject(.upstream(error, url: url.description)) }
        var headers = head.headers.removingHopByHop()
        // The replay is this request forwarded later: it says it passed through Larder (RFC 9110 §7.6.3), as
        // `startTransfer` does for a request sent at once.
        headers.add("Via", "\(head.version.major).\(head.version.minor) \(config.viaName)")
        do {
            let (request, position) = try queue.enqueue(
                method: head.method, url: url, headers: headers, body: body, route: routeName
            )
            cacheStatus = CacheStatus.queued.rawValue
            statusField = CacheStatusField(fwd: .miss, detail: error.kind.rawValue)
            let text = "{\"queued\":true,\"id\":\(JSONText.quote(request.id)),\"position\":\(position),"
                + "\"origin\":\(JSONText.quote(request.origin)),\"reason\":\(JSONText.quote(error.kind.rawValue))}\n"
            let bodyBytes = Array(text.utf8)
            var response = ResponseHead.text(202, "", contentType: "application/json", length: bodyBytes.count)
            response.headers.add("Location", "/_larder/queue/\(request.id)")
            decorate(&response)
            respond(response, body: bodyBytes)
        } catch ReplayQueueError.bodyTooLarge {
            // The queue keeps the limit it was opened with; a reload may have raised `queue.maxBodySize` for the
            // collecting side. A body the queue does not take is answered as it would be without a queue.
            reject(.upstream(error, url: url.description))
        } catch {
            server.logger.error("queueing failed", metadata: ["url": "\(url)", "error": "\(error)"])
            reject(.internalError("the request could not be queued (\(error))"))
        }
    }
}
