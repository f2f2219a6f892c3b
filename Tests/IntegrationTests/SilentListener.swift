import Glibc

/// A port where connecting never completes: a listener whose accept queue is full and never drained, so
/// Linux drops every further SYN and the connector waits until its own connect timeout.
final class SilentListener: Sendable {
    let port: Int
    private let listener: Int32
    private let filler: Int32

    init() throws {
        let (listener, port) = try Socket.listen()
        // Listening again resizes the backlog. With 0 the accept queue holds one connection; the filler
        // takes that place and nobody ever accepts it.
        _ = Glibc.listen(listener, 0)
        self.listener = listener
        self.port = port
        filler = try Socket.connect(port: port, timeout: .seconds(5))
    }

    deinit {
        Socket.close(filler)
        Socket.close(listener)
    }

    /// `127.0.0.1:PORT`.
    var authority: String { "127.0.0.1:\(port)" }
}
