import Glibc

/// A port on 127.0.0.1 that refuses every connection, and stays that way for the life of this value: a
/// socket bound to it that never listens. (A stopped server's port could be taken by another test's server
/// at any moment; this one cannot.)
final class RefusingPort: Sendable {
    let port: Int
    private let socket: Int32

    init() throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError.system(call: "socket", errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
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
            throw HarnessError.system(call: "bind 127.0.0.1:0", errno: code)
        }
        socket = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        Glibc.close(socket)
    }

    /// `http://127.0.0.1:PORT` followed by `pathAndQuery`.
    func url(_ pathAndQuery: String) -> String {
        "http://127.0.0.1:\(port)\(pathAndQuery)"
    }
}
