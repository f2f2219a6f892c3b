import CachePolicy
import CacheStore
import Dispatch
import HTTPWire
import Upstream

/// One request on a connection and the response to it. Confined to the connection's queue.
final class Exchange: @unchecked Sendable {
    /// Strong: an exchange can outlive its client (a commit finishing after the client left);
    /// the connection drops its exchange when done, which breaks the cycle.
    let connection: Connection
    let server: ProxyServer
    /// Nil when the request head itself could not be parsed.
    let head: RequestHead?
    let framing: BodyFraming
    let started = DispatchTime.now()
    private(set) var requestComplete: Bool
    var transfer: UpstreamTransfer?
    /// What the cache knows about this request, when it goes through the cache.
    var lookup: CacheLookup?
    /// Receives the origin's body while it streams, when the response is being stored.
    var writer: CacheWriter?
    /// This request leads a coalesced fetch and must release its key when done.
    var leadsFetchOf: String?
    /// `Cache-Status` (RFC 9211) of the response being sent.
    var statusField = CacheStatusField()
    var servedFromCache = false
    /// Waiting for another request's fetch of the same key (coalescing).
    var waitingForFetch = false
    /// When the request went to the origin (RFC 9111 §4.2.3's request_time).
    var requestTime: Int64 = 0
    /// When the request went to the origin, for the upstream latency histogram.
    var upstreamStarted = DispatchTime.now()
    /// What the access log says about the outcome.
    var logStatus = 0
    var logBytes = 0
    var cacheStatus = "-"
    var routeName = "default"
    var url = "-"
    private var headSent = false
    private var finished = false

    init(connection: Connection, head: RequestHead?, framing: BodyFraming) {
        self.connection = connection
        self.server = connection.server
        self.head = head
        self.framing = framing
        // A request without a body is complete with its head; its `.end` event may come later.
        requestComplete = head == nil || framing == .none || framing == .length(0)
    }

    // MARK: Request side, called by the connection

    /// Returns false when the body cannot be taken now; `connection.resumeRequestBody` follows.
    func requestBody(_ bytes: [UInt8]) -> Bool {
        guard let transfer else { return true }
        return transfer.sendBody(bytes)
    }

    func requestEnded() {
        requestComplete = true
        transfer?.finishBody()
    }

    func clientGone() {
        transfer?.cancel()
        transfer = nil
        writer?.discard()
        writer = nil
        releaseFetch()
        if !finished {
            finished = true
            logStatus = logStatus == 0 ? 499 : logStatus
            server.accessLog(self, outcome: "client-closed")
        }
    }

    // MARK: Response side

    /// Answers with a complete response built by Larder.
    func respond(_ head: ResponseHead, body: [UInt8]) {
        guard !finished else { return }
        let hasBody = ResponseHead.hasBody(status: head.status, requestMethod: self.head?.method ?? "GET")
        sendHead(head, bodyLength: hasBody ? body.count : nil, hasBody: hasBody)
        if hasBody { sendBody(body) }
        finish()
    }

    /// Answers with Larder's error response for `error`.
    func reject(_ error: ProxyError) {
        let acceptsJSON = head?.headers["Accept"]?.contains("application/json") ?? false
        var (responseHead, body) = error.response(viaName: server.config.viaName, acceptsJSON: acceptsJSON)
        responseHead.headers.add("X-Cache", cacheStatus == "-" ? "BYPASS" : cacheStatus)
        if error.closesConnection { responseHead.headers.add("Connection", "close") }
        logError = error
        respond(responseHead, body: body)
    }

    var logError: ProxyError?

    func sendHead(_ head: ResponseHead, bodyLength: Int?, hasBody: Bool) {
        headSent = true
        logStatus = head.status
        connection.sendHead(head, bodyLength: bodyLength, hasBody: hasBody)
    }

    func sendBody(_ bytes: [UInt8], onWritten: (@Sendable () -> Void)? = nil) {
        logBytes += bytes.count
        connection.sendBody(bytes, onWritten: onWritten)
    }

    func finish() {
        guard !finished else { return }
        finished = true
        recordOutcome()
        server.accessLog(self, outcome: nil)
        connection.finishResponse()
    }

    /// The response can't be completed after its head went out: cut the connection.
    func abort(_ reason: String) {
        guard !finished else { return }
        finished = true
        transfer?.cancel()
        writer?.discard()
        writer = nil
        releaseFetch()
        server.accessLog(self, outcome: reason)
        connection.abortResponse()
    }

    var hasSentHead: Bool { headSent }

    /// Wakes requests waiting on this one's fetch (coalescing); safe to call more than once.
    func releaseFetch() {
        guard let key = leadsFetchOf else { return }
        leadsFetchOf = nil
        server.coalescer.release(key)
    }

    private func recordOutcome() {
        guard cacheStatus != "-" else { return }
        server.metrics.recordRequest(cacheStatus: cacheStatus, route: routeName, bytes: logBytes, fromCache: servedFromCache)
        server.counters.record(status: cacheStatus, route: routeName, bytes: logBytes, fromCache: servedFromCache)
    }
}

/// What the cache found for a request, and when it looked.
struct CacheLookup {
    var key: String
    var url: AbsoluteURL
    /// The stored variant the plan was made with (fresh, stale or for validation), if any.
    var entry: StoredEntry?
    var now: Int64
    /// The origin is asked to validate `entry` rather than send a new response.
    var validating = false
    /// This request waited for another one's fetch before looking again.
    var collapsed = false
}
