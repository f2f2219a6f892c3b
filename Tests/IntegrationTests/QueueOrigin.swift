import Glibc
import Synchronization

/// An origin that starts down and comes up on the same port: a socket bound to 127.0.0.1 that refuses connections
/// until `up()` makes it listen (bound all along, so no other test's server can take the port meanwhile). Up, it
/// serves like `OriginServer` (same parsing, same request log, `X-Origin-Seq`), answering as `answer(_:)` last said;
/// `down()` makes it refuse again.
final class QueueOrigin: Sendable {
    /// What the origin does with each request once up.
    enum Answer: Sendable, Equatable {
        /// A response with this status, a short body and `Cache-Control: max-age=600` (a GET answer is stored).
        case status(Int)
        /// Reads the request and never answers, until the client goes away or the origin stops.
        case stall
    }

    let port: Int
    private let log = OriginRequestLog()
    private let state: Mutex<State>

    private struct State {
        /// Bound and not listening until `up()`; then owned by `listener`.
        var reserved: Int32?
        var listener: TCPListener?
        var answer = Answer.status(200)
    }

    init() throws {
        let (fd, port) = try Self.bind(port: 0)
        self.port = port
        state = Mutex(State(reserved: fd))
    }

    deinit {
        stop()
    }

    /// `http://127.0.0.1:PORT` followed by `pathAndQuery`.
    func url(_ pathAndQuery: String) -> String {
        "http://127.0.0.1:\(port)\(pathAndQuery)"
    }

    /// The queue's key for this origin, as `/_larder/queue` and the metrics name it.
    var origin: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far, in order.
    var requests: [OriginRequest] { log.all }

    /// How requests are answered from now on (before or after `up()`).
    func answer(_ answer: Answer) {
        state.withLock { $0.answer = answer }
    }

    /// Starts accepting connections on the port that refused them until now.
    func up() throws {
        try state.withLock { state in
            guard let fd = state.reserved else { return }
            guard Glibc.listen(fd, 128) == 0 else { throw HarnessError.system(call: "listen", errno: errno) }
            state.reserved = nil
            let log = log
            // Weak: the listener's threads must not keep this origin (and so themselves) alive.
            let handler: @Sendable (OriginRequest) -> OriginResponse = { [weak self] _ in
                self?.response() ?? OriginResponse(status: 500)
            }
            state.listener = TCPListener(name: "queue origin", listening: fd, port: port) { socket, stopped in
                OriginServer.serve(socket, handler: handler, log: log, stopped: stopped)
            }
        }
    }

    /// Goes down again: closes every connection and refuses new ones, on the same port (bound again at once, as the
    /// replay queue's own tests do; the kernel hands out a just-freed port to another test only by a rare chance).
    func down() throws {
        let listener = state.withLock { state in
            defer { state.listener = nil }
            return state.listener
        }
        guard let listener else { return }
        listener.stop()
        let (fd, _) = try Self.bind(port: port)
        state.withLock { $0.reserved = fd }
    }

    /// Closes the port and every connection. Also done on deinit.
    func stop() {
        let (reserved, listener) = state.withLock { state in
            defer {
                state.reserved = nil
                state.listener = nil
            }
            return (state.reserved, state.listener)
        }
        if let reserved { Glibc.close(reserved) }
        listener?.stop()
    }

    /// A socket bound to 127.0.0.1:`port` (0: the kernel picks), not listening. `SO_REUSEADDR` (inherited by the
    /// connections it accepts), so that `down()` can bind the port again while those linger in TIME_WAIT.
    private static func bind(port: Int) throws -> (fd: Int32, port: Int) {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError.system(call: "socket", errno: errno) }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            Glibc.close(fd)
            throw HarnessError.system(call: "bind 127.0.0.1:\(port)", errno: code)
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    private func response() -> OriginResponse {
        switch state.withLock({ $0.answer }) {
        case .status(let status):
            OriginResponse(
                status: status, headers: [("Cache-Control", "max-age=600")],
                body: .bytes(Array("answered \(status)\n".utf8)))
        case .stall: OriginResponse(fault: .stall)
        }
    }
}
