import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tiny HTTP/1.1 origin on 127.0.0.1, written with plain sockets so it shares no code with what it tests. It keeps
/// one port for its whole life and can be switched between down (the port is bound but not listening, so connections
/// are refused), answering every request with a status, and silent (requests are read and never answered). It
/// records every request it reads and stamps each answer with `X-Sequence`.
final class OriginServer: Sendable {
    enum Mode: Sendable, Equatable {
        case down
        case answering(Int)
        case silent
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let port: Int
    private let state: Mutex<State>
    /// Entered by the acceptor thread and by each connection thread until its socket is closed.
    private let threads = DispatchGroup()

    private struct State {
        var mode = Mode.down
        /// Bound and not listening while down, so no one else takes the port; -1 while up.
        var reserved: Int32
        var listener: Int32 = -1
        var connections: Set<Int32> = []
        var requests: [OriginRequest] = []
    }

    init(_ mode: Mode = .down) throws {
        let reserved = try Self.bind(port: 0)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(reserved, $0, &length) }
        }
        guard named == 0 else { throw Failure(description: "getsockname: \(String(cString: strerror(errno)))") }
        port = Int(UInt16(bigEndian: address.sin_port))
        state = Mutex(State(reserved: reserved))
        try set(mode)
    }

    deinit {
        state.withLock { state in
            if state.reserved >= 0 { close(state.reserved) }
        }
    }

    /// `http://127.0.0.1:<port>`, as the queue files it.
    var origin: String { "http://127.0.0.1:\(port)" }

    func url(_ path: String) -> String { origin + path }

    var requests: [OriginRequest] { state.withLock { $0.requests } }

    var mode: Mode { state.withLock { $0.mode } }

    /// Switches modes. Going down closes the listener and every connection and returns once they are closed, so the
    /// next connection attempt is refused.
    func set(_ mode: Mode) throws {
        let (old, listener) = state.withLock { state -> (Mode, Int32) in
            defer { state.mode = mode }
            return (state.mode, state.listener)
        }
        switch (old == .down, mode == .down) {
        case (true, false):
            try startListening()
        case (false, true):
            state.withLock { state in
                // Wakes the acceptor out of accept() and every connection out of recv(); each closes its own socket.
                shutdown(listener, Int32(SHUT_RDWR))
                for connection in state.connections { shutdown(connection, Int32(SHUT_RDWR)) }
            }
            threads.wait()
            close(listener)
            let reserved = try Self.bind(port: port)
            state.withLock {
                $0.listener = -1
                $0.reserved = reserved
            }
        default:
            break
        }
    }

    /// Goes down for good; call at the end of each test.
    func stop() {
        try? set(.down)
    }

    private func startListening() throws {
        let listener = state.withLock { state -> Int32 in
            defer { state.reserved = -1 }
            return state.reserved
        }
        guard listen(listener, 64) == 0 else {
            throw Failure(description: "listen: \(String(cString: strerror(errno)))")
        }
        state.withLock { $0.listener = listener }
        threads.enter()
        let thread = Thread { [self] in
            acceptLoop(listener)
            threads.leave()
        }
        thread.start()
    }

    private func acceptLoop(_ listener: Int32) {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            let goingDown = state.withLock { state -> Bool in
                state.connections.insert(connection)
                return state.mode == .down
            }
            if goingDown { shutdown(connection, Int32(SHUT_RDWR)) }
            threads.enter()
            let thread = Thread { [self] in
                serve(connection)
                state.withLock { state in
                    // Closed under the lock, so `set(.down)` never shuts down a descriptor number reused elsewhere.
                    state.connections.remove(connection)
                    close(connection)
                }
                threads.leave()
            }
            thread.start()
        }
    }

    /// Reads requests (Content-Length framing, as libcurl sends a body of known size) until the peer closes.
    private func serve(_ connection: Int32) {
        var buffer: [UInt8] = []
        while true {
            guard let headEnd = readUntilHeadEnd(connection, &buffer) else { return }
            let headText = String(decoding: buffer[..<headEnd], as: UTF8.self)
            buffer.removeFirst(headEnd + 4)
            var lines = headText.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst().split(separator: " ")
            guard requestLine.count == 3 else { return }
            let fields = lines.compactMap { line -> OriginRequest.Field? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return OriginRequest.Field(
                    name: String(line[..<colon]),
                    value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            let length = Int(fields.first { $0.name.lowercased() == "content-length" }?.value ?? "0") ?? 0
            while buffer.count < length {
                guard receive(connection, into: &buffer) else { return }
            }
            let body = Array(buffer.prefix(length))
            buffer.removeFirst(length)
            let request = OriginRequest(
                method: String(requestLine[0]), target: String(requestLine[1]), fields: fields, body: body)
            let (mode, sequence) = state.withLock { state -> (Mode, Int) in
                state.requests.append(request)
                return (state.mode, state.requests.count)
            }
            switch mode {
            case .answering(let status):
                let text = "answer \(sequence)\n"
                let response =
                    "HTTP/1.1 \(status) Status\r\nContent-Length: \(text.utf8.count)\r\nX-Sequence: \(sequence)\r\n\r\n"
                    + text
                guard sendAll(connection, Array(response.utf8)) else { return }
            case .silent, .down:
                // Keeps the request unanswered until the origin goes down or the client gives up.
                continue
            }
        }
    }

    private func readUntilHeadEnd(_ connection: Int32, _ buffer: inout [UInt8]) -> Int? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        while true {
            if buffer.count >= 4 {
                for index in 0...(buffer.count - 4) where buffer[index..<(index + 4)].elementsEqual(terminator) {
                    return index
                }
            }
            guard receive(connection, into: &buffer) else { return nil }
        }
    }

    private func receive(_ connection: Int32, into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    private func sendAll(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            // ! : `bytes` is not empty inside the loop, so it has a base address.
            let sent = bytes.withUnsafeBytes {
                send(connection, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// A TCP socket bound to 127.0.0.1:`port`, not listening. `SO_REUSEADDR` lets the same port be bound again while
    /// the last listener's connections linger in TIME_WAIT.
    private static func bind(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "bind to port \(port): \(reason)")
        }
        return descriptor
    }
}
