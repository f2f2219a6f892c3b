import ReplayQueue

extension ProxyServer {
    /// A replayed write the origin accepted changes what is stored for its URL, as the same write sent at once does:
    /// a cache invalidates the target URI on a non-error answer to an unsafe method (RFC 9111 §4.4). Give this to
    /// the queue as its `onDelivery`.
    public func replayDelivered(_ delivery: Delivery) {
        guard (200..<400).contains(delivery.status), let store else { return }
        store.remove(url: delivery.url)
    }

    /// `/_larder/queue`: pending, held and dead requests, and the depth per origin.
    func queueJSON() -> String {
        guard let queue = replayQueue else { return "{\"available\":false,\"requests\":[]}\n" }
        let requests = queue.list().map(Self.json)
        let depth = queue.depthByOrigin().sorted { $0.key < $1.key }.map { origin, depth in
            "\(JSONText.quote(origin)):{\"pending\":\(depth.pending),\"held\":\(depth.held),\"dead\":\(depth.dead)}"
        }
        let counters = queue.counters()
        return "{\"available\":true,\"requests\":[\(requests.joined(separator: ","))],\"depth\":{\(depth.joined(separator: ","))},"
            + "\"delivered\":\(counters.delivered),\"failedAttempts\":\(counters.failed),\"deadLettered\":\(counters.deadLettered)}\n"
    }

    /// `/_larder/queue/{id}` (the `Location` of a 202): one queued request, or nil when there is none with that id.
    func queuedRequestJSON(id: String) -> String? {
        replayQueue?.list().first { $0.id == id }.map { Self.json($0) + "\n" }
    }

    private static func json(_ request: QueuedRequest) -> String {
        let (state, reason): (String, String?) =
            switch request.state {
            case .pending: ("pending", nil)
            case .held(let reason): ("held", reason)
            case .dead(let reason): ("dead", reason)
            }
        var fields = [
            "\"id\":\(JSONText.quote(request.id))", "\"origin\":\(JSONText.quote(request.origin))",
            "\"method\":\(JSONText.quote(request.method))", "\"url\":\(JSONText.quote(request.url))",
            "\"route\":\(JSONText.quote(request.route))", "\"state\":\(JSONText.quote(state))",
            "\"attempts\":\(request.attempts)", "\"enqueuedAt\":\(request.enqueuedAt)", "\"bodyBytes\":\(request.body.count)",
        ]
        if let reason { fields.append("\"reason\":\(JSONText.quote(reason))") }
        if let error = request.lastError { fields.append("\"lastError\":\(JSONText.quote(error))") }
        if let status = request.lastStatus { fields.append("\"lastStatus\":\(status)") }
        return "{" + fields.joined(separator: ",") + "}"
    }
}
