import Foundation
import Synchronization

/// Accepts TCP connections on 127.0.0.1 at a kernel-chosen port and serves each on a thread of its own.
///
/// Shared state lives in `state`. A connection's socket is closed only by its own thread, after it has left
/// `state.open`, and `stop()` shuts sockets down while holding the lock, so `stop()` never touches a descriptor
/// number that was closed and reused elsewhere. The accept thread keeps the listener alive until `stop()`.
final class TCPListener: Sendable {
    let port: Int
    /// Fired by `stop()`; connection threads wait on it instead of sleeping through a scripted delay.
    let stopped = Latch()
    private let listenerClosed = Latch()
    private let state: Mutex<State>

    private struct State {
        var listener: Int32?
        var open: [Int: Int32] = [:]
        var accepted = 0
        var isStopped = false
    }

    /// `serve` runs on the connection's own thread; the socket is closed when it returns.
    convenience init(name: String, serve: @escaping @Sendable (_ socket: Int32, _ stopped: Latch) -> Void) throws {
        let (fd, port) = try Socket.listen()
        self.init(name: name, listening: fd, port: port, serve: serve)
    }

    /// Takes over `fd`, a socket already listening on 127.0.0.1:`port`, and closes it once stopped.
    init(
        name: String, listening fd: Int32, port: Int,
        serve: @escaping @Sendable (_ socket: Int32, _ stopped: Latch) -> Void
    ) {
        self.port = port
        state = Mutex(State(listener: fd))
        let thread = Thread { [self] in acceptLoop(fd, name: name, serve: serve) }
        thread.name = "\(name) accept :\(port)"
        thread.start()
    }

    var connectionCount: Int { state.withLock { $0.accepted } }

    /// Connections whose serving thread has not finished yet.
    var openConnectionCount: Int { state.withLock { $0.open.count } }

    /// Shuts every open connection down, as an origin does with idle keep-alive connections, and keeps listening.
    func shutDownOpenConnections() {
        state.withLock { state in
            for fd in state.open.values { Socket.shutdown(fd) }
        }
    }

    /// Closes the listener (new connections are refused once this returns) and shuts every open connection.
    func stop() {
        let first = state.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            state.isStopped = true
            if let listener = state.listener { Socket.shutdown(listener) }
            for fd in state.open.values { Socket.shutdown(fd) }
            return true
        }
        guard first else { return }
        stopped.fire()
        listenerClosed.wait(timeout: .seconds(5))
    }

    private func acceptLoop(_ listener: Int32, name: String, serve: @escaping @Sendable (Int32, Latch) -> Void) {
        while let fd = Socket.accept(listener) {
            let id = state.withLock { state -> Int? in
                guard !state.isStopped else { return nil }
                state.accepted += 1
                state.open[state.accepted] = fd
                return state.accepted
            }
            guard let id else {
                Socket.close(fd)
                break
            }
            let thread = Thread { [self] in
                serve(fd, stopped)
                state.withLock { _ = $0.open.removeValue(forKey: id) }
                Socket.close(fd)
            }
            thread.name = "\(name) connection \(id)"
            thread.start()
        }
        state.withLock { $0.listener = nil }
        Socket.close(listener)
        listenerClosed.fire()
    }
}
