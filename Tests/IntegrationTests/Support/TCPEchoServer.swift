/// Echoes every byte back, on 127.0.0.1 at a kernel-chosen port: the far end of CONNECT tunnel tests.
/// When a client half-closes, the server finishes echoing and half-closes too.
final class TCPEchoServer: Sendable {
    private let listener: TCPListener

    init() throws {
        listener = try TCPListener(name: "echo") { socket, _ in
            while let bytes = try? Socket.receive(socket, deadline: nil), !bytes.isEmpty {
                guard (try? Socket.sendAll(socket, bytes)) != nil else { return }
            }
            Socket.shutdownWrite(socket)
        }
    }

    deinit {
        listener.stop()
    }

    var port: Int { listener.port }

    /// `127.0.0.1:PORT`, the authority a CONNECT request names.
    var authority: String { "127.0.0.1:\(port)" }

    /// TCP connections accepted so far.
    var connectionCount: Int { listener.connectionCount }

    /// Closes the listener and every open connection. Also done on deinit.
    func stop() {
        listener.stop()
    }
}
