import CachePolicy
import Glibc

/// Thin wrappers over the socket calls Larder makes, turning errno into Swift errors.
enum SocketCalls {
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call): \(String(cString: strerror(code)))" }
    }

    /// A non-blocking listening socket bound to `host:port` (port 0 picks a free one).
    static func listen(host: String, port: Int, backlog: Int32 = 1024) throws -> (descriptor: Int32, port: Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let first = result else {
            throw Failure(call: "getaddrinfo(\(host))", code: status == EAI_SYSTEM ? errno : EINVAL)
        }
        defer { freeaddrinfo(result) }
        let descriptor = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(call: "socket", code: errno) }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(call: "bind(\(host):\(port))", code: code)
        }
        guard Glibc.listen(descriptor, backlog) == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(call: "listen", code: code)
        }
        return (descriptor, localPort(descriptor))
    }

    /// Non-blocking, close-on-exec, no Nagle delay (`accept4` is not visible to Swift's Glibc).
    static func prepareAccepted(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    static func localPort(_ descriptor: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return address(of: storage)?.port ?? 0
    }

    static func localHost(_ descriptor: Int32) -> String? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard status == 0 else { return nil }
        return address(of: storage)?.ip.description
    }

    static func peerAddress(_ descriptor: Int32) -> IPAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
        }
        guard status == 0 else { return nil }
        return address(of: storage)?.ip
    }

    static func address(of storage: sockaddr_storage) -> (ip: IPAddress, port: Int)? {
        var storage = storage
        let family = Int32(storage.ss_family)
        return withUnsafeBytes(of: &storage) { raw -> (IPAddress, Int)? in
            switch family {
            case AF_INET:
                let inet = raw.load(as: sockaddr_in.self)
                let bytes = withUnsafeBytes(of: inet.sin_addr) { Array($0) }
                return IPAddress(bytes: bytes).map { ($0, Int(UInt16(bigEndian: inet.sin_port))) }
            case AF_INET6:
                let inet6 = raw.load(as: sockaddr_in6.self)
                let bytes = withUnsafeBytes(of: inet6.sin6_addr) { Array($0) }
                return IPAddress(bytes: bytes).map { ($0, Int(UInt16(bigEndian: inet6.sin6_port))) }
            default:
                return nil
            }
        }
    }

    /// Resolves `host` (blocking: call off the connection queues) to its TCP addresses.
    static func resolve(host: String, port: Int) throws -> [(ip: IPAddress, storage: sockaddr_storage, length: socklen_t)] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0 else { throw Failure(call: "getaddrinfo(\(host))", code: status == EAI_SYSTEM ? errno : EHOSTUNREACH) }
        defer { freeaddrinfo(result) }
        var addresses: [(IPAddress, sockaddr_storage, socklen_t)] = []
        var cursor = result
        while let entry = cursor {
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(start: entry.pointee.ai_addr, count: Int(entry.pointee.ai_addrlen)))
            }
            if let (ip, _) = address(of: storage) { addresses.append((ip, storage, entry.pointee.ai_addrlen)) }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }

    /// Connects with a timeout (blocking: call off the connection queues); returns a non-blocking socket.
    static func connect(to storage: sockaddr_storage, length: socklen_t, timeoutMilliseconds: Int32) throws -> Int32 {
        var storage = storage
        let descriptor = socket(Int32(storage.ss_family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(call: "socket", code: errno) }
        let status = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, length) }
        }
        if status != 0 && errno != EINPROGRESS {
            let code = errno
            close(descriptor)
            throw Failure(call: "connect", code: code)
        }
        if status != 0 {
            var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&poller, 1, timeoutMilliseconds)
            if ready == 0 {
                close(descriptor)
                throw Failure(call: "connect", code: ETIMEDOUT)
            }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
            if ready < 0 || error != 0 {
                close(descriptor)
                throw Failure(call: "connect", code: ready < 0 ? errno : error)
            }
        }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return descriptor
    }
}
