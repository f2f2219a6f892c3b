import CCurl
import Dispatch
import Glibc
import Logging
import Reactor
import Synchronization

/// Fetches from origins with one libcurl multi handle, driven by an event loop through libcurl's socket interface:
/// the loop's epoll set watches libcurl's sockets and the loop's wait honours libcurl's timer, so a transfer's
/// events run on the loop's own thread. The proxy gives each lane a client of its own, so a miss is read, fetched
/// and answered on one thread, and connections to an origin are reused across that lane's clients.
///
/// Confinement: `multi`, every easy handle, `handles`, `watched`, `timeout`, `running` and `stopped` are touched only
/// on the loop's thread; other threads reach them through `loop.execute`. Commands from the loop's own thread are
/// deferred the same way, so libcurl is never re-entered from inside one of its callbacks.
public final class UpstreamClient: @unchecked Sendable {
    enum Command {
        case start(UpstreamTransfer)
        case resume(UpstreamTransfer)
        case cancel(UpstreamTransfer)
        case stop
    }

    private let loop: EventLoop
    private let multi: UnsafeMutableRawPointer
    let checkDestination: @Sendable (DestinationAddress) -> DestinationVerdict
    private let caFile = Mutex<String?>(nil)
    private let logger: Logger
    private let ownsLoop: Bool
    private var handles = EasyHandlePool()
    /// libcurl's sockets, each with its registration in the loop.
    private var watched: [Int32: CurlSocket] = [:]
    /// The connections this client opened for libcurl (`openSocketCallback`) and libcurl has not closed yet
    /// (`closeSocketCallback`): the sockets whose whole life this client sees, so the only ones it may leave in the
    /// epoll set while libcurl does not want them.
    private var connections: Set<Int32> = []
    /// When libcurl next wants `CURL_SOCKET_TIMEOUT` (uptime nanoseconds); read by the loop before each wait.
    private var timeout: UInt64?
    /// The transfers added to `multi` and not yet removed, by easy handle.
    private var running: [UnsafeMutableRawPointer: UpstreamTransfer] = [:]
    private var stopped = false

    /// A client on `loop`. With no loop, the client runs one of its own (for users outside the proxy's lanes).
    /// - Parameter checkDestination: consulted for every address before libcurl connects to it.
    public init(
        loop: EventLoop? = nil,
        maxConnections: Int = 256,
        logger: Logger,
        checkDestination: @escaping @Sendable (DestinationAddress) -> DestinationVerdict
    ) {
        UpstreamClient.globalInit
        self.loop = loop ?? EventLoop(name: "larder-upstream")
        ownsLoop = loop == nil
        // curl_multi_init fails only when out of memory, which the process cannot survive anyway.
        multi = curl_multi_init()!
        self.logger = logger
        self.checkDestination = checkDestination
        _ = larder_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, maxConnections)
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = larder_multi_setopt_socketfunction(multi, socketCallback)
        _ = larder_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, context)
        _ = larder_multi_setopt_timerfunction(multi, timerCallback)
        _ = larder_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, context)
        self.loop.execute { [self] in self.loop.add(TimeoutWatch(client: self)) }
    }

    private static let globalInit: Void = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }()

    /// The PEM file of CA certificates `https://` origins are verified against from now on; nil for the system's
    /// bundle. Verification itself is never switched off.
    public func trustCertificates(in file: String?) {
        caFile.withLock { $0 = file }
    }

    /// Starts a request. `onEvent` is called on the client's loop thread, from inside libcurl: hand the work on with
    /// `execute` (of this loop or your own queue) rather than calling into the transfer from there.
    /// `onUploadSpace` is called when a full request-body buffer has room again.
    @discardableResult
    public func start(
        _ request: UpstreamRequest,
        onUploadSpace: (@Sendable () -> Void)? = nil,
        onEvent: @escaping @Sendable (UpstreamEvent) -> Void
    ) -> UpstreamTransfer {
        let transfer = UpstreamTransfer(request: request, client: self, onEvent: onEvent, onUploadSpace: onUploadSpace)
        post(.start(transfer))
        return transfer
    }

    /// Drops the transfers still running; a client with a loop of its own ends the loop's thread too.
    public func stop() {
        post(.stop)
    }

    func post(_ command: Command) {
        loop.execute { [self] in perform(command) }
    }

    // MARK: The loop's thread

    private func perform(_ command: Command) {
        if stopped { return }
        switch command {
        case .start(let transfer): begin(transfer)
        case .resume(let transfer): resume(transfer)
        case .cancel(let transfer): remove(transfer, result: nil)
        case .stop:
            stopped = true
            for transfer in Array(running.values) { remove(transfer, result: nil) }
            if ownsLoop { loop.stop() }
            return
        }
        collectFinished()
    }

    fileprivate func socketAction(_ descriptor: Int32, events: UInt32) {
        if stopped { return }
        var mask: Int32 = 0
        if events & EventLoop.readable != 0 { mask |= CURL_CSELECT_IN }
        if events & EventLoop.writable != 0 { mask |= CURL_CSELECT_OUT }
        if events & ~(EventLoop.readable | EventLoop.writable) != 0 { mask |= CURL_CSELECT_ERR }
        var running: Int32 = 0
        curl_multi_socket_action(multi, descriptor, mask, &running)
        collectFinished()
    }

    fileprivate func timeoutReached() {
        timeout = nil
        if stopped { return }
        var running: Int32 = 0
        curl_multi_socket_action(multi, larder_socket_timeout, 0, &running)
        collectFinished()
    }

    /// libcurl's socket callback: which of its sockets to watch for what.
    ///
    /// A connection going back to libcurl's pool (`CURL_POLL_REMOVE`) stays in the epoll set, quiet: the next
    /// transfer to its origin usually wants it again straight away, and leaving it saves an `EPOLL_CTL_DEL` and an
    /// `EPOLL_CTL_ADD` per reused connection. Should it turn ready while pooled (the origin closed it, or sent
    /// something unasked), `ready` drops the registration then; libcurl checks a pooled connection before reusing
    /// it, and closes a dead one.
    fileprivate func watch(_ descriptor: Int32, what: Int32) {
        if what == CURL_POLL_REMOVE {
            guard let socket = watched[descriptor] else { return }
            if connections.contains(descriptor) {
                socket.wanted = 0
            } else {
                // Not opened through this client (libcurl's resolver, say), so it may be closed and its number reused
                // without this client hearing of it: a registration left behind could shadow the new socket's.
                forget(socket)
            }
            return
        }
        var events: UInt32 = 0
        if what & CURL_POLL_IN != 0 { events |= EventLoop.readable }
        if what & CURL_POLL_OUT != 0 { events |= EventLoop.writable }
        if let socket = watched[descriptor] {
            socket.wanted = events
            if socket.registered == events { return }
            if loop.modify(descriptor, token: socket.token, events: events) {
                socket.registered = events
                return
            }
            // The descriptor was closed and its number reused without a REMOVE first: epoll forgot the old one, so
            // the new socket is registered afresh below.
            forget(socket)
        }
        let socket = CurlSocket(client: self, descriptor: descriptor)
        guard let token = loop.register(descriptor, socket, events: events) else {
            logger.error("cannot watch an upstream socket", metadata: ["descriptor": "\(descriptor)"])
            return
        }
        socket.token = token
        socket.wanted = events
        socket.registered = events
        watched[descriptor] = socket
    }

    /// Readiness of one of libcurl's sockets, from the loop.
    fileprivate func ready(_ socket: CurlSocket, events: UInt32) {
        guard socket.wanted != 0 else {
            // A pooled connection turned ready while no transfer uses it: left registered, level-triggered, it would
            // wake the loop on every turn.
            forget(socket)
            return
        }
        socketAction(socket.descriptor, events: events)
    }

    private func forget(_ socket: CurlSocket) {
        loop.unregister(socket.descriptor, token: socket.token)
        if watched[socket.descriptor] === socket { watched[socket.descriptor] = nil }
    }

    /// `openSocketCallback` just opened a connection socket for libcurl: any registration under its number is left
    /// over from a closed socket.
    func connectionOpened(_ descriptor: Int32) {
        if let stale = watched[descriptor] { forget(stale) }
        connections.insert(descriptor)
    }

    /// libcurl is about to close one of the connections this client opened.
    fileprivate func closing(_ descriptor: Int32) {
        connections.remove(descriptor)
        if let socket = watched[descriptor] { forget(socket) }
    }

    /// libcurl's timer callback: -1 for no timeout, 0 for "as soon as you can" (never from inside the callback).
    fileprivate func setTimeout(milliseconds: Int) {
        timeout = milliseconds < 0 ? nil : DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
    }

    fileprivate var nextTimeout: UInt64? { timeout }

    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let result = message.pointee.data.result
            if let transfer = UpstreamClient.transfer(of: easy) {
                remove(transfer, result: result)
            }
        }
    }

    private static func transfer(of easy: UnsafeMutableRawPointer) -> UpstreamTransfer? {
        var pointer: UnsafeMutableRawPointer?
        _ = larder_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &pointer)
        guard let pointer else { return nil }
        return Unmanaged<UpstreamTransfer>.fromOpaque(pointer).takeUnretainedValue()
    }

    private func begin(_ transfer: UpstreamTransfer) {
        // Cancelled before it started: nothing to add.
        if transfer.flow.withLock({ $0.finished }) { return }
        let caFile = caFile.withLock { $0 }
        guard let (easy, isNew) = handles.take(caFile: caFile) else {
            transfer.finish(with: CURLE_OUT_OF_MEMORY)
            return
        }
        transfer.handle = easy
        transfer.caFile = caFile
        // Retained until `remove`, so callbacks always find it alive.
        let context = Unmanaged.passRetained(transfer).toOpaque()
        EasyConfiguration.apply(
            transfer.request, to: easy, isNew: isNew, transfer: transfer, context: context, caFile: caFile,
            client: Unmanaged.passUnretained(self).toOpaque())
        running[easy] = transfer
        curl_multi_add_handle(multi, easy)
    }

    private func resume(_ transfer: UpstreamTransfer) {
        guard let handle = transfer.handle else { return }
        let (changed, mask) = transfer.pauseMaskAfterResume()
        if changed { curl_easy_pause(handle, mask) }
    }

    private func remove(_ transfer: UpstreamTransfer, result: CURLcode?) {
        guard let handle = transfer.handle else { return }
        if let result { transfer.finish(with: result) }
        curl_multi_remove_handle(multi, handle)
        running[handle] = nil
        if result != nil {
            handles.reuse(handle, caFile: transfer.caFile)
        } else {
            // Cancelled mid-transfer, perhaps paused: not worth trusting to a reset.
            curl_easy_cleanup(handle)
        }
        EasyConfiguration.freeHeaderList(transfer.headerList)
        transfer.handle = nil
        transfer.headerList = nil
        Unmanaged.passUnretained(transfer).release()
    }
}

/// One of libcurl's sockets in the loop: readiness goes back to libcurl for the socket it belongs to.
private final class CurlSocket: EventLoopSocket {
    weak var client: UpstreamClient?
    let descriptor: Int32
    var token: UInt64 = 0
    /// What libcurl wants to hear of (`EventLoop.readable`, `.writable`); 0 while the connection is pooled.
    var wanted: UInt32 = 0
    /// What the epoll set watches it for.
    var registered: UInt32 = 0

    init(client: UpstreamClient, descriptor: Int32) {
        self.client = client
        self.descriptor = descriptor
    }

    func socketEvents(_ events: UInt32) {
        client?.ready(self, events: events)
    }
}

/// libcurl's timer, as the loop's deadline.
private final class TimeoutWatch: EventLoopDeadline {
    weak var client: UpstreamClient?

    init(client: UpstreamClient) {
        self.client = client
    }

    var deadline: UInt64? { client?.nextTimeout }

    func deadlineReached() {
        client?.timeoutReached()
    }
}

private func client(_ userp: UnsafeMutableRawPointer?) -> UpstreamClient {
    // Both callbacks are registered with the client's own pointer, and the client outlives its multi handle's use.
    Unmanaged<UpstreamClient>.fromOpaque(userp!).takeUnretainedValue()
}

private let socketCallback: larder_socket_callback = { _, descriptor, what, userp, _ in
    client(userp).watch(descriptor, what: what)
    return 0
}

private let timerCallback: larder_timer_callback = { _, milliseconds, userp in
    client(userp).setTimeout(milliseconds: milliseconds)
    return 0
}

/// Every easy handle's `CURLOPT_CLOSESOCKETFUNCTION`, with the client as its data: libcurl keeps both with each
/// connection, and calls this for every connection socket it opened through `openSocketCallback`.
let closeSocketCallback: larder_closesocket_callback = { clientp, descriptor in
    client(clientp).closing(descriptor)
    return close(descriptor)
}
