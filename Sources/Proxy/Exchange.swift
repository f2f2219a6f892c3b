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
    /// The config this request runs under, read once: a reload mid-request changes nothing for it.
    let settings: Settings
    /// Reads project into `settings`' stored config, with no copy of the whole struct (a `lazy var` copied it on
    /// every read, retaining each of its arrays and strings).
    var config: Config {
        @inline(__always) get { settings.config }
    }
    /// Nil when the request head itself could not be parsed.
    let head: RequestHead?
    let framing: BodyFraming
    let started = DispatchTime.now()
    private(set) var requestComplete: Bool
    var transfer: UpstreamTransfer?
    /// The body count of `transfer`'s response; events carrying another one are from a transfer dropped since.
    var activeTally: BodyTally?
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
    /// The request body being gathered before the request can go on (body-keyed routes, queue routes).
    var collector: BodyCollector?
    /// `100 Continue` was sent: the client may send its body.
    var continueSent = false
    /// The request may be kept in the offline queue if its origin cannot be reached; its whole body.
    var queueableBody: [UInt8]?
    /// A response held until its body is complete (`storeIf.json`).
    var held: HeldResponse?
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
        self.settings = connection.server.settings
        self.head = head
        self.framing = framing
        // A request without a body is complete with its head; its `.end` event may come later.
        requestComplete = head == nil || framing == .none || framing == .length(0)
    }

    // MARK: Request side, called by the connection

    /// Returns false when the body cannot be taken now; `connection.resumeRequestBody` follows.
    func requestBody(_ bytes: [UInt8]) -> Bool {
        if collector != nil {
            collector!.body.append(contentsOf: bytes)  // checked just above
            if collector!.body.count > collector!.limit {
                let overflow = collector!
                collector = nil
                overflow.onOverflow(overflow.body)
            }
            return true
        }
        guard let transfer else { return true }
        return transfer.sendBody(bytes)
    }

    func requestEnded() {
        requestComplete = true
        if let collected = collector {
            collector = nil
            collected.onComplete(collected.body)
            return
        }
        transfer?.finishBody()
    }

    /// Gathers the request body (up to `limit` bytes) before going on: `onComplete` with the whole body, or
    /// `onOverflow` with what arrived so far once it grows past the limit (the rest then streams as usual).
    func collectBody(limit: Int, onComplete: @escaping ([UInt8]) -> Void, onOverflow: @escaping ([UInt8]) -> Void) {
        if requestComplete { return onComplete([]) }
        sendContinueIfExpected()
        collector = BodyCollector(limit: limit, onComplete: onComplete, onOverflow: onOverflow)
    }

    /// Answers `Expect: 100-continue` once Larder is ready to read the body (RFC 9110 §10.1.1).
    func sendContinueIfExpected() {
        guard !continueSent, !requestComplete, let head, head.version == .http1_1,
            head.headers.listContains("Expect", token: "100-continue")
        else { return }
        continueSent = true
        connection.sendRaw(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
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
        if error == .adminUnauthorized {
            var (responseHead, body) = error.response(viaName: config.viaName, acceptsJSON: false)
            responseHead.headers.add("WWW-Authenticate", "Bearer realm=\"larder\"")
            logError = error
            return respond(responseHead, body: body)
        }
        let acceptsJSON = head?.headers["Accept"]?.contains("application/json") ?? false
        var (responseHead, body) = error.response(viaName: config.viaName, acceptsJSON: acceptsJSON)
        responseHead.headers.add("X-Cache", cacheStatus == "-" ? "BYPASS" : cacheStatus)
        responseHead.headers.add("Cache-Status", statusField.description)
        if error.closesConnection { responseHead.headers.add("Connection", "close") }
        logError = error
        respond(responseHead, body: body)
    }

    var logError: ProxyError?

    func sendHead(_ head: ResponseHead, bodyLength: Int?, hasBody: Bool, marks: ResponseMarks? = nil) {
        headSent = true
        logStatus = head.status
        connection.sendHead(head, bodyLength: bodyLength, hasBody: hasBody, marks: marks)
    }

    func sendHead(_ head: consuming ResponseHeadBuilder, status: Int, contentLength: Int?, hasBody: Bool) {
        headSent = true
        logStatus = status
        connection.sendHead(consume head, contentLength: contentLength, hasBody: hasBody)
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

/// A request body being gathered before the request goes on.
struct BodyCollector {
    var body: [UInt8] = []
    var limit: Int
    var onComplete: ([UInt8]) -> Void
    var onOverflow: ([UInt8]) -> Void

    init(limit: Int, onComplete: @escaping ([UInt8]) -> Void, onOverflow: @escaping ([UInt8]) -> Void) {
        self.limit = limit
        self.onComplete = onComplete
        self.onOverflow = onOverflow
    }
}

/// What the cache found for a request. A class: the exchange's methods each take it out of
/// `Exchange.lookup`, and a struct of this many references cost a retain and a release of every field per copy
/// (a tenth of a 1 KiB hit's reference counting). Made anew by each look-up, so never shared between two.
final class CacheLookup {
    let key: String
    let url: AbsoluteURL
    let route: Route
    /// How the origin is asked, once the decision is to fetch.
    var plan: FetchPlan?
    /// The stored variant the plan was made with (fresh, stale or for validation), if any.
    let entry: StoredEntry?
    /// The origin is asked to validate `entry` rather than send a new response.
    var validating = false
    /// This request waited for another one's fetch before looking again.
    let collapsed: Bool
    /// The request body, when the route keys on it.
    let requestBody: [UInt8]?

    init(key: String, url: AbsoluteURL, route: Route, entry: StoredEntry?, collapsed: Bool, requestBody: [UInt8]?) {
        self.key = key
        self.url = url
        self.route = route
        self.entry = entry
        self.collapsed = collapsed
        self.requestBody = requestBody
    }
}
