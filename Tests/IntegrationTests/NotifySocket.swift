import Foundation
import Glibc

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`, collecting what the daemon sends.
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let descriptor: Int32
    private let lock = NSLock()
    private var received: [String] = []
    private var reader: Thread?

    init(directory: String) throws {
        path = directory + "/notify.sock"
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard descriptor >= 0, status == 0 else { throw HarnessError.malformed("cannot bind the notify socket at \(path)") }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count > 0 {
                    let message = String(decoding: buffer[0..<count], as: UTF8.self)
                    lock.withLock { received.append(message) }
                } else if count < 0 && errno != EAGAIN && errno != EINTR {
                    return
                }
                if Thread.current.isCancelled { return }
            }
        }
        reader = thread
        thread.start()
    }

    var messages: [String] { lock.withLock { received } }

    /// How many messages carried `assignment` (e.g. `READY=1`) as one of their lines.
    func count(_ assignment: String) -> Int {
        messages.filter { $0.split(separator: "\n").contains(Substring(assignment)) }.count
    }

    deinit {
        reader?.cancel()
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
        unlink(path)
    }
}
