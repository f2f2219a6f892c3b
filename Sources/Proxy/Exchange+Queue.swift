import CachePolicy
import HTTPWire
import ReplayQueue
import Upstream

extension Exchange {
    /// A write on a queue route: sent at once, and kept for replay if its origin cannot be reached. While earlier
    /// writes to the origin wait in the queue, it waits behind them instead: sent now, it would overtake them
    /// (issue 5: a later request never overtakes an earlier one to the same origin).
    func forwardQueueable(to url: AbsoluteURL, head: RequestHead, route: Route, body: [UInt8]) {
        queueableBody = body
        if let queue = server.replayQueue, queue.hasWaitingRequests(for: url),
            keep(url: url, head: head, body: body, reason: "earlier-requests-waiting")
        {
            return
        }
        forward(to: url, head: head, route: route, bodyPrefix: body)
    }

    /// Keeps a write whose origin could not be reached, or answers as without a queue when the queue cannot take it.
    func enqueue(url: AbsoluteURL, head: RequestHead, body: [UInt8], error: UpstreamError) {
        if !keep(url: url, head: head, body: body, reason: error.kind.rawValue) {
            reject(.upstream(error, url: url.description))
        }
    }

    /// Keeps the request in the offline queue and answers `202 Accepted` with its id, position and `reason` (also the
    /// `Cache-Status` detail). Returns false, having answered nothing, when the queue does not take the request: there
    /// is none, or the body is over the limit it was opened with (a reload may have raised `queue.maxBodySize` for
    /// the collecting side).
    private func keep(url: AbsoluteURL, head: RequestHead, body: [UInt8], reason: String) -> Bool {
        guard let queue = server.replayQueue else { return false }
        var headers = head.headers.removingHopByHop()
        // The replay is this request forwarded later: it says it passed through Larder (RFC 9110 §7.6.3), as
        // `startTransfer` does for a request sent at once.
        headers.add("Via", "\(head.version.major).\(head.version.minor) \(config.viaName)")
        do {
            let (request, position) = try queue.enqueue(
                method: head.method, url: url, headers: headers, body: body, route: routeName
            )
            cacheStatus = CacheStatus.queued.rawValue
            statusField = CacheStatusField(fwd: .miss, detail: reason)
            let text = "{\"queued\":true,\"id\":\(JSONText.quote(request.id)),\"position\":\(position),"
                + "\"origin\":\(JSONText.quote(request.origin)),\"reason\":\(JSONText.quote(reason))}\n"
            let bodyBytes = Array(text.utf8)
            var response = ResponseHead.text(202, "", contentType: "application/json", length: bodyBytes.count)
            response.headers.add("Location", "/_larder/queue/\(request.id)")
            marks.apply(to: &response)
            respond(response, body: bodyBytes)
        } catch ReplayQueueError.bodyTooLarge {
            return false
        } catch {
            server.logger.error("queueing failed", metadata: ["url": "\(url)", "error": "\(error)"])
            reject(.internalError("the request could not be queued (\(error))"))
        }
        return true
    }
}
