/// A scriptable HTTP/1.1 origin on 127.0.0.1, with its own small socket code so that one parsing bug cannot
/// hide on both sides of a test (it never uses HTTPWire).
///
/// `handler` runs on the connection's thread for every request, in the order they arrive on that connection.
/// The server supports keep-alive and pipelining, records every request, and stamps each response with
/// `X-Origin-Seq`, so a test can prove whether a response came from the origin.
final class OriginServer: Sendable {
    private let listener: TCPListener
    private let log: OriginRequestLog

    init(_ handler: @escaping @Sendable (OriginRequest) -> OriginResponse) throws {
        let log = OriginRequestLog()
        self.log = log
        listener = try TCPListener(name: "origin") { socket, stopped in
            OriginServer.serve(socket, handler: handler, log: log, stopped: stopped)
        }
    }

    /// The same response for every request.
    convenience init(always response: OriginResponse) throws {
        try self.init { _ in response }
    }

    deinit {
        listener.stop()
    }

    var port: Int { listener.port }

    /// `http://127.0.0.1:PORT` followed by `pathAndQuery` (which should start with `/`).
    func url(_ pathAndQuery: String) -> String {
        "http://127.0.0.1:\(port)\(pathAndQuery)"
    }

    /// Every request received so far, in order.
    var requests: [OriginRequest] { log.all }

    /// TCP connections accepted so far (a proxy that reuses its upstream connection keeps this low).
    var connectionCount: Int { listener.connectionCount }

    /// Connections open now (a connection's thread ends once either side closed it).
    var openConnectionCount: Int { listener.openConnectionCount }

    /// Closes every open connection, as an origin does once its keep-alive timeout passes, and goes on listening.
    func closeOpenConnections() {
        listener.shutDownOpenConnections()
    }

    /// Closes the listener (connections are refused once this returns) and every open connection,
    /// cutting short delays and stalls. Also done on deinit.
    func stop() {
        listener.stop()
    }
}
