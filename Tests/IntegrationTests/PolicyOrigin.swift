import Glibc
import Synchronization

/// An origin whose behaviour a policy test switches while it runs: answering with `healthy`, failing with a
/// status, stalling (reading the request and never answering), or down (every connection refused).
///
/// Going down stops the server and binds a socket that never listens to its port (with `SO_REUSEADDR`, past the
/// closed connections' TIME_WAIT), so its URLs, and what Larder stored under them, stay the same while no other
/// test's server can take the port (see `RefusingPort`). The socket is closed on deinit.
final class PolicyOrigin: Sendable {
    enum Behaviour: Sendable, Equatable {
        case healthy
        case failing(status: Int)
        case stalling
    }

    /// The behaviour and the port's refusing socket, shared with the server's connection threads.
    private final class State: Sendable {
        let behaviour = Mutex(Behaviour.healthy)
        let refusing = Mutex<Int32?>(nil)
    }

    private let server: OriginServer
    private let state = State()

    init(_ healthy: @escaping @Sendable (OriginRequest) -> OriginResponse) throws {
        let state = self.state
        server = try OriginServer { request in
            switch state.behaviour.withLock({ $0 }) {
            case .healthy:
                return healthy(request)
            case .failing(let status):
                return OriginResponse(status: status, body: .bytes(Array("origin failing with \(status)".utf8)))
            case .stalling:
                return OriginResponse(fault: .stall)
            }
        }
    }

    deinit {
        server.stop()
        if let fd = state.refusing.withLock({ $0 }) { Glibc.close(fd) }
    }

    var port: Int { server.port }

    func url(_ pathAndQuery: String) -> String { server.url(pathAndQuery) }

    /// Every request received so far, in order (none arrive once it is down).
    var requests: [OriginRequest] { server.requests }

    /// Requests received so far for `path` (the query left out).
    func requests(to path: String) -> [OriginRequest] { requests.filter { $0.path == path } }

    func set(_ behaviour: Behaviour) {
        state.behaviour.withLock { $0 = behaviour }
    }

    /// Every later connection is refused, for the rest of this value's life.
    func goDown() throws {
        server.stop()
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError.system(call: "socket", errno: errno) }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            Glibc.close(fd)
            throw HarnessError.system(call: "bind 127.0.0.1:\(port) to keep it refusing", errno: code)
        }
        state.refusing.withLock { $0 = fd }
    }
}
