import CCurl
import HTTPWire
import Synchronization

/// One request to an origin, from `UpstreamClient.start` until its last event.
///
/// Confinement: `handle`, `headerList`, `errorBuffer` and `head` are touched only on the client's
/// loop thread. Everything other threads touch (the upload buffer, flow-control counters) lives
/// in `flow`, behind its mutex. That split is why this class is `@unchecked Sendable`.
public final class UpstreamTransfer: @unchecked Sendable {
    /// Bytes handed to the consumer but not yet acknowledged with `consumed(_:)`. Above `pauseAbove`
    /// libcurl is paused, so a slow client holds at most this much of a body in memory.
    static let pauseAbove = 512 * 1024
    static let resumeBelow = 128 * 1024
    /// Request-body bytes buffered for libcurl; above this the producer is asked to wait.
    static let uploadHighWater = 256 * 1024

    struct Flow {
        var upload: [UInt8] = []
        var uploadOffset = 0
        var uploadFinished = false
        var producerWaiting = false
        var inFlight = 0
        var receivePaused = false
        var sendPaused = false
        var finished = false

        var uploadBuffered: Int { upload.count - uploadOffset }
    }

    let request: UpstreamRequest
    let onEvent: @Sendable (UpstreamEvent) -> Void
    let onUploadSpace: (@Sendable () -> Void)?
    weak var client: UpstreamClient?
    let flow = Mutex(Flow())

    // Loop-thread state.
    var handle: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// The CA file the handle was set up with, so the pool knows whether the next transfer may keep its options.
    var caFile: String?
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    var head = HeadAccumulator()
    var headDelivered = false
    /// Set by the socket filter when it refused an address, so the failure is reported as such.
    var refusal: UpstreamError?

    init(
        request: UpstreamRequest,
        client: UpstreamClient,
        onEvent: @escaping @Sendable (UpstreamEvent) -> Void,
        onUploadSpace: (@Sendable () -> Void)?
    ) {
        self.request = request
        self.client = client
        self.onEvent = onEvent
        self.onUploadSpace = onUploadSpace
        errorBuffer.initialize(to: 0)
        if case .bytes(let bytes) = request.body {
            flow.withLock {
                $0.upload = bytes
                $0.uploadFinished = true
            }
        }
    }

    deinit {
        errorBuffer.deallocate()
    }

    // MARK: Called from any thread

    /// Queues request-body bytes. Returns false when the buffer is full: stop reading the client
    /// until `onUploadSpace` is called.
    @discardableResult
    public func sendBody(_ bytes: [UInt8]) -> Bool {
        let (wake, hasRoom) = flow.withLock { flow -> (Bool, Bool) in
            // Drop what libcurl has taken before adding more. Waiting for the buffer to empty is not enough: libcurl
            // takes from the front while the client adds at the back, so it may never be empty mid-upload, and the
            // buffer would grow to the whole body. Moving the rest (under `uploadHighWater`) costs less than that.
            if flow.uploadOffset > 0 && flow.uploadOffset * 2 >= flow.upload.count {
                flow.upload.removeFirst(flow.uploadOffset)
                flow.uploadOffset = 0
            }
            flow.upload.append(contentsOf: bytes)
            let hasRoom = flow.uploadBuffered < Self.uploadHighWater
            if !hasRoom { flow.producerWaiting = true }
            return (flow.sendPaused, hasRoom)
        }
        if wake { client?.post(.resume(self)) }
        return hasRoom
    }

    /// The request body is complete.
    public func finishBody() {
        let wake = flow.withLock { flow -> Bool in
            flow.uploadFinished = true
            return flow.sendPaused
        }
        if wake { client?.post(.resume(self)) }
    }

    /// The consumer has written `count` body bytes onward, so libcurl may deliver more.
    public func consumed(_ count: Int) {
        let wake = flow.withLock { flow -> Bool in
            flow.inFlight -= count
            return flow.receivePaused && flow.inFlight <= Self.resumeBelow
        }
        if wake { client?.post(.resume(self)) }
    }

    /// Stops the transfer; no event follows.
    public func cancel() {
        let alreadyFinished = flow.withLock { flow -> Bool in
            defer { flow.finished = true }
            return flow.finished
        }
        if !alreadyFinished { client?.post(.cancel(self)) }
    }

    // MARK: libcurl callbacks (the client's loop thread)

    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool {
        // After the final head, libcurl hands over a chunked body's trailer fields here. Larder re-frames
        // the body and does not forward trailers (RFC 9110 §6.5.1 lets it discard them); they are not a
        // second head.
        if headDelivered { return true }
        switch head.consume(line) {
        case .needMore:
            return true
        case .interim:
            // 1xx: Larder answers `Expect: 100-continue` itself, and never forwards `Upgrade`.
            return true
        case .complete(let response):
            headDelivered = true
            deliver(.head(response))
            return true
        case .invalid(let error):
            refusal = error
            return false
        }
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        let paced = request.paced
        let accepted = flow.withLock { flow -> Bool in
            if flow.finished || !paced { return true }
            if flow.inFlight >= Self.pauseAbove {
                flow.receivePaused = true
                return false
            }
            flow.inFlight += bytes.count
            return true
        }
        guard accepted else { return larder_writefunc_pause }
        deliver(.body([UInt8](bytes)))
        return bytes.count
    }

    func provideBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var notifyProducer = false
        let result = flow.withLock { flow -> Int in
            if flow.finished { return larder_readfunc_abort }
            let available = flow.uploadBuffered
            if available == 0 {
                if flow.uploadFinished { return 0 }
                flow.sendPaused = true
                return larder_readfunc_pause
            }
            let count = min(available, buffer.count)
            flow.upload.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[flow.uploadOffset..<flow.uploadOffset + count]))
            }
            flow.uploadOffset += count
            if flow.uploadOffset == flow.upload.count {
                flow.upload.removeAll(keepingCapacity: true)
                flow.uploadOffset = 0
            }
            if flow.producerWaiting && flow.uploadBuffered < Self.uploadHighWater / 2 {
                flow.producerWaiting = false
                notifyProducer = true
            }
            return count
        }
        if notifyProducer { onUploadSpace?() }
        return result
    }

    /// Which directions should stay paused after a `.resume` command; updates the flags to match.
    func pauseMaskAfterResume() -> (changed: Bool, mask: Int32) {
        flow.withLock { flow in
            var changed = false
            if flow.receivePaused && flow.inFlight <= Self.resumeBelow {
                flow.receivePaused = false
                changed = true
            }
            if flow.sendPaused && (flow.uploadBuffered > 0 || flow.uploadFinished) {
                flow.sendPaused = false
                changed = true
            }
            let mask = (flow.receivePaused ? CURLPAUSE_RECV : 0) | (flow.sendPaused ? CURLPAUSE_SEND : 0)
            return (changed, mask)
        }
    }

    func finish(with result: CURLcode) {
        let alreadyFinished = flow.withLock { flow -> Bool in
            defer { flow.finished = true }
            return flow.finished
        }
        if alreadyFinished { return }
        if result == CURLE_OK && headDelivered {
            onEvent(.end)
            return
        }
        onEvent(.failed(classify(result)))
    }

    private func deliver(_ event: UpstreamEvent) {
        if flow.withLock({ $0.finished }) { return }
        onEvent(event)
    }

    private func classify(_ code: CURLcode) -> UpstreamError {
        if let refusal { return refusal }
        let message = String(cString: errorBuffer)
        let details = message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
        if headDelivered {
            // The client already has the head: whatever went wrong, the body is incomplete.
            return UpstreamError(.responseIncomplete, details: details)
        }
        return UpstreamError(UpstreamTransfer.kind(of: code, connected: connected), details: details)
    }

    /// Whether a connection to the origin was up (a fresh one or a reused one) when the transfer failed.
    private var connected: Bool {
        guard let handle else { return false }
        var pretransfer: curl_off_t = 0
        _ = larder_easy_getinfo_off(handle, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
        return pretransfer > 0
    }

    static func kind(of code: CURLcode, connected: Bool) -> UpstreamError.Kind {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST: .dnsError
        case CURLE_COULDNT_CONNECT: .connectionRefused
        case CURLE_OPERATION_TIMEDOUT: connected ? .responseTimeout : .connectionTimeout
        case CURLE_PEER_FAILED_VERIFICATION: .tlsCertificateError
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_USE_SSL_FAILED: .tlsProtocolError
        case CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL, CURLE_HTTP2, CURLE_BAD_CONTENT_ENCODING: .protocolError
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR: .connectionTerminated
        case CURLE_PARTIAL_FILE: .responseIncomplete
        default: .internalError
        }
    }
}
