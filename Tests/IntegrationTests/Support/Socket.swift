import Glibc

/// Blocking POSIX TCP calls on 127.0.0.1, shared by the harness's servers and raw client.
///
/// Descriptors are marked close-on-exec (and `ChildProcess` closes everything above 2 anyway), so a spawned
/// daemon or curl never inherits a test's socket and keeps a "stopped" origin's port alive.
/// Writes use `MSG_NOSIGNAL`: a peer that went away is an error to report, not a `SIGPIPE` that ends the run.
enum Socket {
    private static let loopback = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)

    /// A listening socket on 127.0.0.1 at a port the kernel chose.
    static func listen() throws -> (fd: Int32, port: Int) {
        let fd = try make()
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = loopback
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(fd, 128) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw HarnessError.system(call: "bind/listen 127.0.0.1:0", errno: code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            Glibc.close(fd)
            throw HarnessError.system(call: "getsockname", errno: code)
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Waits for the next connection; `nil` once the listener is shut down or fails.
    static func accept(_ listener: Int32) -> Int32? {
        while true {
            let fd = Glibc.accept(listener, nil, nil)
            if fd >= 0 {
                // accept4(SOCK_CLOEXEC) is not imported; ChildProcess closes inherited descriptors regardless.
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                return fd
            }
            switch errno {
            case EINTR, ECONNABORTED, EPROTO: continue
            default: return nil
            }
        }
    }

    /// Connects to 127.0.0.1:`port`. `timeout` bounds the connect and, afterwards, each single `send`.
    static func connect(port: Int, timeout: Duration) throws -> Int32 {
        let fd = try make()
        var limit = timeval(
            tv_sec: Int(timeout.components.seconds),
            tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000)
        )
        // Linux applies SO_SNDTIMEO to connect(2) as well as to send(2).
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr = loopback
        while true {
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if result == 0 { return fd }
            let code = errno
            if code == EINTR { continue }
            Glibc.close(fd)
            throw HarnessError.system(call: "connect 127.0.0.1:\(port)", errno: code)
        }
    }

    /// Writes every byte, or throws.
    static func sendAll(_ fd: Int32, _ bytes: some Collection<UInt8>) throws {
        let sent: Void? = try bytes.withContiguousStorageIfAvailable { try sendAll(fd, UnsafeRawBufferPointer($0)) }
        if sent == nil { try Array(bytes).withUnsafeBytes { try sendAll(fd, $0) } }
    }

    static func sendAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < buffer.count {
            // baseAddress! is safe: offset < count means the buffer is not empty.
            let sent = Glibc.send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            if sent < 0 {
                if errno == EINTR { continue }
                throw HarnessError.system(call: "send", errno: errno)
            }
            offset += sent
        }
    }

    /// Reads what is available (at most `max` bytes), waiting until `deadline` if one is given.
    /// Returns `[]` when the peer closed (a reset counts as closed).
    static func receive(_ fd: Int32, max: Int = 65536, deadline: ContinuousClock.Instant?) throws -> [UInt8] {
        if let deadline { try waitReadable(fd, until: deadline) }
        var bytes = [UInt8](repeating: 0, count: max)
        while true {
            let count = bytes.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, max, 0) }
            if count >= 0 {
                bytes.removeSubrange(count...)
                return bytes
            }
            switch errno {
            case EINTR: continue
            case ECONNRESET: return []
            default: throw HarnessError.system(call: "recv", errno: errno)
            }
        }
    }

    /// Wakes any thread blocked on `fd` (accept, recv, send) without releasing the descriptor number.
    static func shutdown(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Half-closes: the peer reads end-of-stream, and this side can still read.
    static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    private static func make() throws -> Int32 {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError.system(call: "socket", errno: errno) }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    private static func waitReadable(_ fd: Int32, until deadline: ContinuousClock.Instant) throws {
        while true {
            let remaining = deadline - ContinuousClock.now
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = Glibc.poll(&entry, 1, remaining.pollMilliseconds)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw HarnessError.system(call: "poll", errno: errno) }
            if ready == 0 && ContinuousClock.now >= deadline {
                throw HarnessError.timedOut("bytes from the peer on a 127.0.0.1 socket")
            }
        }
    }
}
