import Synchronization

/// A TCP client that sends exactly the bytes a test gives it: for malformed requests, pipelining and
/// keep-alive, where curl would tidy things up.
///
/// Meant for one test task at a time: the socket's read buffer sits in a `Mutex` only to be `Sendable`, and
/// each blocking call runs on a thread of its own (see `Blocking`).
final class RawClient: Sendable {
    let port: Int
    private let fd: Int32
    private let stream: Mutex<ByteStream>
    private let closed = Atomic(false)

    private init(port: Int, fd: Int32) {
        self.port = port
        self.fd = fd
        stream = Mutex(ByteStream(fd: fd))
    }

    deinit {
        close()
    }

    /// Connects to 127.0.0.1:`port`, writes `send`, and returns everything received until the peer closes or
    /// `timeout` passes (whichever comes first; use `readToEnd` to require the close).
    static func exchange(port: Int, send: [UInt8], timeout: Duration = .seconds(10)) async throws -> [UInt8] {
        let client = try await connect(port: port, timeout: timeout)
        try await client.send(send)
        let deadline = ContinuousClock.now + timeout
        return try await Blocking.run {
            client.stream.withLock { stream in
                var received: [UInt8] = []
                while let bytes = try? stream.readAvailable(deadline: deadline), !bytes.isEmpty {
                    received += bytes
                }
                return received
            }
        }
    }

    /// `exchange` with text (write `\r\n` line endings yourself).
    static func exchange(port: Int, send text: String, timeout: Duration = .seconds(10)) async throws -> String {
        String(decoding: try await exchange(port: port, send: Array(text.utf8), timeout: timeout), as: UTF8.self)
    }

    /// Opens a connection to 127.0.0.1:`port`. `timeout` bounds the connect and each later `send`.
    static func connect(port: Int, timeout: Duration = .seconds(10)) async throws -> RawClient {
        let fd = try await Blocking.run { try Socket.connect(port: port, timeout: timeout) }
        return RawClient(port: port, fd: fd)
    }

    func send(_ bytes: [UInt8]) async throws {
        try await Blocking.run { [fd] in try Socket.sendAll(fd, bytes) }
    }

    func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    /// Reads one response (head and body) and leaves anything after it buffered for the next call, so
    /// pipelined responses come back one by one. Pass `method: "HEAD"` when the request was a HEAD.
    /// An interim 1xx response is returned like any other; call again for the final one.
    func readResponse(method: String = "GET", timeout: Duration = .seconds(10)) async throws -> RawResponse {
        let deadline = ContinuousClock.now + timeout
        return try await Blocking.run {
            try self.stream.withLock { stream in
                guard let bytes = try stream.readHead(deadline: deadline) else {
                    throw HarnessError.malformed("the connection closed before a response arrived")
                }
                guard let head = MessageHead(bytes) else {
                    throw HarnessError.malformed("not an HTTP head: \(String(decoding: bytes, as: UTF8.self))")
                }
                let parts = head.startLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
                guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
                    throw HarnessError.malformed("not a status line: \(head.startLine)")
                }
                let body: [UInt8]
                if method == "HEAD" || (100..<200).contains(status) || status == 204 || status == 304 {
                    body = []
                } else if head.tokens("Transfer-Encoding").last == "chunked" {
                    body = try stream.readChunkedBody(deadline: deadline)
                } else if let length = head.field("Content-Length").flatMap({ Int($0) }) {
                    body = try stream.read(count: length, deadline: deadline)
                } else {
                    body = try stream.readToEnd(deadline: deadline)
                }
                return RawResponse(
                    version: String(parts[0]), status: status, reason: parts.count > 2 ? String(parts[2]) : "",
                    headers: head.fields, body: body
                )
            }
        }
    }

    /// Returns buffered bytes, or else waits for the next ones; `[]` means the peer has closed.
    func readAvailable(timeout: Duration = .seconds(10)) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        return try await Blocking.run { try self.stream.withLock { try $0.readAvailable(deadline: deadline) } }
    }

    /// Reads exactly `count` bytes; throws if the peer closes first or `timeout` passes.
    func read(count: Int, timeout: Duration = .seconds(10)) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        return try await Blocking.run { try self.stream.withLock { try $0.read(count: count, deadline: deadline) } }
    }

    /// Reads until the peer closes the connection; throws `HarnessError.timedOut` if it does not within `timeout`.
    func readToEnd(timeout: Duration = .seconds(10)) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        return try await Blocking.run { try self.stream.withLock { try $0.readToEnd(deadline: deadline) } }
    }

    /// Half-closes: the peer reads end-of-stream, and this side can still read.
    func shutdownWrite() {
        Socket.shutdownWrite(fd)
    }

    /// Closes the socket (also done on deinit).
    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Socket.close(fd)
    }
}
