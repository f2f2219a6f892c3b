import CachePolicy
import CLinux
import Dispatch
import Glibc
import HTTPWire

/// Owns one client socket: reads and parses requests, hands each to an `Exchange`, and writes
/// responses back in order. All state is touched only on the lane's thread.
final class Connection: LaneSocket, @unchecked Sendable {
    enum Phase {
        case awaitingHead
        case inExchange
        case closing
        case closed
        /// The socket now belongs to a CONNECT tunnel.
        case handedOff
    }

    /// How a response body is delimited on the wire (RFC 9112 §6).
    enum Framing {
        case none
        case length(Int)
        case chunked
        case untilClose
    }

    let descriptor: Int32
    let lane: Lane
    let server: ProxyServer
    let peer: IPAddress?
    private var parser: RequestParser
    /// Pipelined bytes held in memory before the connection stops reading its client; fixed, as `parser`'s limits
    /// are, when the connection opens.
    private let maxBufferedRequestBytes: Int
    /// While registered with the lane.
    private var token: UInt64?
    /// The socket may have bytes (or an end) to read: set by a readiness event, cleared once a read comes up short.
    private var readReady = false
    /// The peer hung up or the socket failed: read until the end is seen, even after a short read.
    private var hangUpSeen = false
    private var inReadable = false
    private var readScheduled = false
    /// Output waits for the socket to become writable.
    private var writeArmed = false
    private var output = OutputQueue()
    private(set) var phase: Phase = .awaitingHead
    private var exchange: Exchange?
    /// Request body stalled: the upstream buffer is full.
    private var requestBodyBlocked = false
    private var closeWhenFlushed = false
    private var lastActivity = DispatchTime.now()
    /// When the first byte of the head now awaited arrived: the header timeout runs from here, so a
    /// client trickling a byte at a time cannot hold the connection forever.
    private var headStarted: DispatchTime?
    private var framing: Framing = .none
    private var responseBodyBytes = 0
    private var draining = false
    /// A `Connection: close` was promised for the current response.
    private var keepAlive = true
    private var processingEvents = false
    /// The lane will call `endOfTurn` to write what is queued.
    private var flushScheduled = false

    init(descriptor: Int32, lane: Lane, server: ProxyServer, limits: RequestParser.Limits) {
        self.descriptor = descriptor
        self.lane = lane
        self.server = server
        self.peer = SocketCalls.peerAddress(descriptor)
        self.parser = RequestParser(limits: limits)
        self.maxBufferedRequestBytes = server.settings.maxBufferedRequestBytes
    }

    /// Starts reading. Call on the lane's thread.
    func start() {
        guard let token = lane.register(descriptor, self) else {
            server.logger.error("cannot watch a client socket; closing it", metadata: ["errno": "\(errno)"])
            phase = .closed
            release(closingDescriptor: true)
            return
        }
        self.token = token
    }

    /// Readiness from the lane (edge-triggered: each is told once).
    func socketEvents(_ events: UInt32) {
        let failed = EPOLLERR.rawValue | EPOLLHUP.rawValue
        if events & (EPOLLOUT.rawValue | failed) != 0 && writeArmed {
            writeArmed = false
            flush()
        }
        if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | failed) != 0 {
            if events & (EPOLLRDHUP.rawValue | failed) != 0 { hangUpSeen = true }
            readReady = true
            readable()
        }
    }

    // MARK: Reading

    /// Reads while the socket has bytes and the connection wants them; what is left waits for `updateReadInterest`.
    private func readable() {
        guard !inReadable else { return }
        inReadable = true
        defer { inReadable = false }
        while readReady && wantsBytes {
            let count = lane.scratch.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress, buffer.count)
            }
            if count > 0 {
                // A short read emptied the socket: the next bytes come with a new event. Not so after a hang-up,
                // whose end of stream must still be read.
                if count < lane.scratch.count && !hangUpSeen { readReady = false }
                lastActivity = .now()
                if phase == .awaitingHead && headStarted == nil { headStarted = lastActivity }
                lane.scratch.withUnsafeBytes { parser.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                processEvents()
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                readReady = false
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return clientGone()
            }
        }
    }

    /// Turns buffered bytes into requests, one at a time: a pipelined request waits until the
    /// response before it is complete, which keeps responses in order (RFC 9112 §9.3.2).
    private func processEvents() {
        // A response finished synchronously calls back in here; the loop further up carries on.
        if processingEvents { return }
        processingEvents = true
        defer { processingEvents = false }
        while phase == .awaitingHead || phase == .inExchange {
            if requestBodyBlocked { break }
            if let exchange, exchange.requestComplete { break }
            guard let event = parser.next() else { break }
            switch event {
            case .head(let head, let framing):
                headStarted = nil
                let exchange = Exchange(connection: self, head: head, framing: framing)
                self.exchange = exchange
                phase = .inExchange
                keepAlive = head.wantsKeepAlive && !draining
                exchange.run()
            case .body(let bytes):
                if exchange?.requestBody(bytes) == false { requestBodyBlocked = true }
            case .end:
                exchange?.requestEnded()
            case .error(let error):
                keepAlive = false
                if let exchange, exchange.transfer != nil {
                    // The body broke off mid-request: the origin must not be left waiting for the rest.
                    exchange.transfer?.cancel()
                    exchange.transfer = nil
                    if exchange.hasSentHead {
                        exchange.abort("bad-request-body")
                        return
                    }
                }
                let exchange = self.exchange ?? Exchange(connection: self, head: nil, framing: .none)
                self.exchange = exchange
                phase = .inExchange
                exchange.reject(.malformed(error))
                return
            }
        }
        updateReadInterest()
    }

    /// Reads while a request is being received, and while its response is pending, so that a client
    /// that leaves is noticed at once and its upstream transfer cancelled (as nginx and Squid do, a
    /// half-close counts as leaving). Pipelined bytes wait in the parser, bounded, then in the kernel.
    private var wantsBytes: Bool {
        switch phase {
        case .awaitingHead: parser.bufferedByteCount < maxBufferedRequestBytes
        case .inExchange where exchange?.requestComplete ?? false:
            parser.bufferedByteCount < maxBufferedRequestBytes
        case .inExchange: !requestBodyBlocked
        case .closing, .closed, .handedOff: false
        }
    }

    /// Reads what arrived while bytes were not wanted, now that they are: no new event will tell of them.
    private func updateReadInterest() {
        guard readReady, !inReadable, !readScheduled, wantsBytes else { return }
        readScheduled = true
        lane.execute { [self] in
            readScheduled = false
            readable()
        }
    }

    /// The upstream has room for more request body.
    func resumeRequestBody() {
        guard requestBodyBlocked else { return }
        requestBodyBlocked = false
        processEvents()
    }

    /// Whether the client is still waiting for request-body bytes to be read (for 100-continue).
    var requestVersion: HTTPVersion { exchange?.head?.version ?? .http1_1 }

    // MARK: Writing

    /// Sends bytes that are not part of a response body (interim responses).
    func sendRaw(_ bytes: [UInt8]) {
        enqueue(bytes, onWritten: nil)
    }

    /// Starts a response whose fields the caller wrote (a stored head and the fields of the moment), none of them
    /// `Content-Length`, `Transfer-Encoding` or `Connection`: adds `Content-Length` when given, which also frames a
    /// body, and the connection-management fields.
    func sendHead(_ head: consuming ResponseHeadBuilder, contentLength: Int?, hasBody: Bool) {
        if let contentLength { head.add("Content-Length", contentLength) }
        framing = hasBody ? .length(contentLength ?? 0) : .none
        if let value = connectionField(saysClose: false) { head.add("Connection", value) }
        responseBodyBytes = 0
        enqueue(head.finished(), onWritten: nil)
    }

    /// Starts a response: picks the framing and adds the connection-management fields. Written straight from
    /// `head` with its framing and connection fields left out, rather than edited in a copy and then serialized.
    /// `marks`: Larder's own fields, written after the head's. The head loses any `X-Cache` of its own, which names
    /// one cache's verdict; its `Cache-Status` stays, as the members of the caches before Larder, which RFC 9211 §2
    /// asks each cache to keep, adding its own member last.
    func sendHead(_ head: ResponseHead, bodyLength: Int?, hasBody: Bool, marks: ResponseMarks? = nil) {
        // An answer that says `Connection: close` (an error after which the request's framing can't be
        // trusted, or one refusing the client) must really close, not only say so.
        let saysClose = head.headers.listContains("Connection", token: "close")
        var builder = ResponseHeadBuilder(statusLineOf: head, extraCapacity: marks == nil ? 64 : 192)
        let marked = marks != nil
        // A response without a body keeps the `Content-Length` it was given (HEAD, 304); one with a body gets its own.
        builder.add(fieldsOf: head.headers) { name in
            switch name.utf8.count {
            case 7: marked && name.equalsIgnoringASCIICase("X-Cache")
            case 10: name.equalsIgnoringASCIICase("Connection")
            case 14: hasBody && name.equalsIgnoringASCIICase("Content-Length")
            case 17: name.equalsIgnoringASCIICase("Transfer-Encoding")
            default: false
            }
        }
        marks?.write(to: &builder)
        if !hasBody {
            framing = .none
        } else if let bodyLength {
            framing = .length(bodyLength)
            builder.add("Content-Length", bodyLength)
        } else if requestVersion.minor >= 1 {
            framing = .chunked
            builder.add("Transfer-Encoding", "chunked")
        } else {
            framing = .untilClose
            keepAlive = false
        }
        if let value = connectionField(saysClose: saysClose) { builder.add("Connection", value) }
        responseBodyBytes = 0
        enqueue((consume builder).finished(), onWritten: nil)
    }

    /// Settles whether the connection stays open after this response, and returns the `Connection` value that
    /// says so: `close`, `keep-alive` for an HTTP/1.0 client, or nil for HTTP/1.1's default.
    private func connectionField(saysClose: Bool) -> String? {
        if draining || saysClose { keepAlive = false }
        if !keepAlive { return "close" }
        return requestVersion == .http1_0 ? "keep-alive" : nil
    }

    /// Sends body bytes; `onWritten` runs once they have left (it must not call back into this
    /// connection synchronously).
    func sendBody(_ bytes: [UInt8], onWritten: (@Sendable () -> Void)? = nil) {
        guard phase == .inExchange, !bytes.isEmpty else {
            onWritten?()
            return
        }
        enqueueBody(length: bytes.count, onWritten: onWritten) { enqueue(bytes, onWritten: $0) }
    }

    /// Sends `length` bytes of `file` from its start as response body, with `sendfile`: the bytes go
    /// from the page cache to the socket without passing through Larder.
    func sendFile(_ file: OpenFile, length: Int, onWritten: (@Sendable () -> Void)? = nil) {
        guard phase == .inExchange, length > 0 else {
            onWritten?()
            return
        }
        let range = OutputQueue.FileRange(file: file, start: 0, length: length)
        enqueueBody(length: length, onWritten: onWritten) { enqueue(range, onWritten: $0) }
    }

    /// Queues `length` bytes of body, framed as the response is: inside a chunk when it is chunked.
    /// `enqueuePayload` queues the bytes themselves, with the action to run once they (and the framing) left.
    private func enqueueBody(
        length: Int, onWritten: (@Sendable () -> Void)?, _ enqueuePayload: ((() -> Void)?) -> Void
    ) {
        responseBodyBytes += length
        guard case .chunked = framing else { return enqueuePayload(onWritten) }
        enqueue(ChunkedEncoding.chunkHeader(size: length), onWritten: nil)
        enqueuePayload(nil)
        enqueue(ChunkedEncoding.chunkTrailer, onWritten: onWritten)
    }

    /// The response is complete; the connection moves on to the next request (or closes).
    func finishResponse() {
        guard phase == .inExchange, let exchange else { return }
        switch framing {
        case .chunked:
            enqueue(ChunkedEncoding.lastChunk, onWritten: nil)
        case .length(let expected) where expected != responseBodyBytes:
            abortResponse()
            return
        case .untilClose:
            keepAlive = false
        default:
            break
        }
        self.exchange = nil
        // A request whose body was not read to its end leaves the byte stream unusable.
        if !keepAlive || !exchange.requestComplete {
            closeAfterFlush()
            return
        }
        phase = .awaitingHead
        lastActivity = .now()
        // Pipelined bytes already here start the next head's clock.
        headStarted = parser.bufferedByteCount > 0 ? lastActivity : nil
        processEvents()
    }

    /// The response cannot be completed: cut the connection so the client can't mistake what it
    /// got for a whole response.
    func abortResponse() {
        exchange = nil
        // What this turn queued goes out first, as far as the socket takes it at once: a client shown the head and
        // part of the body sees its response cut short, one shown nothing cannot tell what happened.
        if !writeArmed && !output.isEmpty && phase == .inExchange { flush() }
        output.removeAll()
        close()
    }

    private func enqueue(_ bytes: [UInt8], onWritten: (() -> Void)?) {
        guard phase != .closed, phase != .handedOff else {
            onWritten?()
            return
        }
        output.append(bytes, onWritten: onWritten)
        scheduleFlush()
    }

    private func enqueue(_ range: OutputQueue.FileRange, onWritten: (() -> Void)?) {
        guard phase != .closed, phase != .handedOff else {
            onWritten?()
            return
        }
        output.append(range, onWritten: onWritten)
        scheduleFlush()
    }

    /// Output is written at the end of the lane's turn, not piece by piece: a response's head and body (a hit, or
    /// a miss whose upstream events arrived together) leave in one gathered write. Measured on 1 KiB hits at 50
    /// connections, writing right after each read instead cost about 5 % of requests/s and did not lower p99.
    private func scheduleFlush() {
        guard !writeArmed, !flushScheduled else { return }
        flushScheduled = true
        lane.atEndOfTurn(self)
    }

    /// Called by the lane once the turn's work is done.
    func endOfTurn() {
        flushScheduled = false
        guard !writeArmed, !output.isEmpty, phase != .closed, phase != .handedOff else { return }
        flush()
    }

    private func flush() {
        let descriptor = self.descriptor
        let result = output.drain { vectors in
            let written = writev(descriptor, vectors.baseAddress, Int32(vectors.count))
            return written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? 0 : written
        } sendFile: { file, offset, count in
            var position = off_t(offset)
            let sent = sendfile(descriptor, file, &position, count)
            if sent < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1 }
            // Nothing left to send before `count`: the file is shorter than its entry said. The response cannot be
            // completed, so the connection is cut (the client sees less than Content-Length, never other bytes).
            return sent == 0 ? -1 : sent
        }
        if result < 0 {
            clientGone()
            return
        }
        if result == 0 {
            // The socket is full: the lane says when it drains.
            lastActivity = .now()
            writeArmed = true
            return
        }
        writeArmed = false
        if closeWhenFlushed { close() }
    }

    private func closeAfterFlush() {
        phase = .closing
        closeWhenFlushed = true
        updateReadInterest()
        if output.isEmpty { close() }
    }

    // MARK: Life cycle

    /// Gives the socket to a tunnel; bytes the client already sent after the CONNECT head go with it.
    func handOff() -> (descriptor: Int32, pending: [UInt8]) {
        let pending = parser.takeBufferedBytes()
        phase = .handedOff
        release(closingDescriptor: false)
        return (descriptor, pending)
    }

    /// Stop taking new requests: close now when idle, else after the current response.
    func drain() {
        draining = true
        keepAlive = false
        if phase == .awaitingHead { close() }
    }

    private func clientGone() {
        exchange?.clientGone()
        exchange = nil
        output.removeAll()
        close()
    }

    /// Called by the lane every sweep.
    func checkTimeouts() {
        let idle = DispatchTime.now().uptimeNanoseconds - lastActivity.uptimeNanoseconds
        let timeouts = server.settings.config.timeouts
        switch phase {
        case .awaitingHead where parser.bufferedByteCount > 0 || parser.isInsideMessage:
            let started = (headStarted ?? lastActivity).uptimeNanoseconds
            let sinceHeadStarted = DispatchTime.now().uptimeNanoseconds - started
            if sinceHeadStarted > UInt64(timeouts.headerMilliseconds) * 1_000_000 {
                let exchange = Exchange(connection: self, head: nil, framing: .none)
                self.exchange = exchange
                phase = .inExchange
                keepAlive = false
                exchange.reject(.requestTimeout)
            }
        case .awaitingHead:
            if idle > UInt64(timeouts.idleMilliseconds) * 1_000_000 { close() }
        case .inExchange, .closing:
            // A client that stops reading its response for this long is gone.
            if writeArmed && idle > UInt64(timeouts.idleMilliseconds) * 1_000_000 { clientGone() }
        default:
            break
        }
    }

    func close() {
        guard phase != .closed, phase != .handedOff else { return }
        phase = .closed
        output.removeAll()
        release(closingDescriptor: true)
    }

    /// Leaves the lane; the server forgets the connection on the lane's next turn, not inside whatever call is
    /// closing it (the last connection of a drain ends the process's wait).
    private func release(closingDescriptor: Bool) {
        if let token {
            lane.unregister(descriptor, token: token)
            self.token = nil
        }
        exchange = nil
        if closingDescriptor { Glibc.close(descriptor) }
        lane.execute { [self] in server.connectionClosed(self) }
    }
}
