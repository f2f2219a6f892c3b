import CachePolicy
import Dispatch
import HTTPWire
import Upstream

/// One request on a connection and the response to it. Confined to the connection's queue.
final class Exchange: @unchecked Sendable {
    unowned let connection: Connection
    /// Nil when the request head itself could not be parsed.
    let head: RequestHead?
    let framing: BodyFraming
    let started = DispatchTime.now()
    var server: ProxyServer { connection.server }
    private(set) var requestComplete: Bool
    var transfer: UpstreamTransfer?
    /// What the access log says about the outcome.
    var logStatus = 0
    var logBytes = 0
    var cacheStatus = "-"
    var routeName = "-"
    var url = "-"
    private var headSent = false
    private var finished = false

    init(connection: Connection, head: RequestHead?, framing: BodyFraming) {
        self.connection = connection
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
        server.accessLog(self, outcome: nil)
        connection.finishResponse()
    }

    /// The response can't be completed after its head went out: cut the connection.
    func abort(_ reason: String) {
        guard !finished else { return }
        finished = true
        transfer?.cancel()
        server.accessLog(self, outcome: reason)
        connection.abortResponse()
    }

    var hasSentHead: Bool { headSent }
}
