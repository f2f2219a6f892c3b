import CLinux
import CachePolicy
import CacheStore
import Dispatch
import Glibc
import HTTPWire
import Logging
import ReplayQueue
import Synchronization
import Upstream

/// The running proxy: the listener, its lanes (which run the connections and their upstream clients) and the live
/// config.
/// Shared by every connection; its mutable state lives behind `state`'s mutex.
public final class ProxyServer: @unchecked Sendable {
    struct State {
        var config: Config {
            didSet { settings = Settings(config) }
        }
        /// `config` behind one reference, for the requests that read it.
        var settings: Settings
        var connections: [ObjectIdentifier: Connection] = [:]
        /// CONNECT tunnels open: their client sockets left `connections`, but still count against the limit.
        var openTunnels = 0
        var draining = false
        var onIdle: (@Sendable () -> Void)?
    }

    private let state: Mutex<State>
    /// Set once in `init`; each lane asks this server how often to sweep for timeouts.
    private(set) var lanes: [Lane] = []
    let logger: Logger
    /// Nil when the cache could not be opened: Larder then proxies without caching.
    let store: CacheStore?
    let coalescer = Coalescer()
    let counters = CacheCounters()
    let metrics = ProxyMetrics()
    /// Recent failures per origin (`scheme://host:port`), for the routes' error back-off.
    private let backoffs = Mutex<[String: ErrorBackoff]>([:])
    /// How many origins `backoffs` holds, readable without its lock: nearly always 0, and then a request needs
    /// neither the lock nor the origin's name.
    private let failingOrigins = Atomic<Int>(0)
    /// The offline queue, once attached (it needs `upstreamClient`, which this server creates).
    private let queueBox = Mutex<ReplayQueue?>(nil)
    var replayQueue: ReplayQueue? { queueBox.withLock { $0 } }
    /// Renders every metric in Prometheus text format; set by the executable, which owns the registry.
    let metricsExporter: (@Sendable () -> String)?
    /// Keys with a background refresh running, so each is refreshed once however many requests come.
    let refreshing = Mutex<Set<String>>([])
    /// Seconds since 1970; read once per request at the edge, and passed into the pure policy code.
    let now: @Sendable () -> Int64
    private let acceptQueue = DispatchQueue(label: "larder.accept")
    private var acceptSource: DispatchSourceRead?
    private var listenDescriptor: Int32 = -1
    private let nextLane = Atomic<Int>(0)
    /// The port actually bound (the configured one, or the kernel's pick for port 0).
    public private(set) var boundPort = 0

    public init(
        config: Config,
        store: CacheStore?,
        logger: Logger,
        metricsExporter: (@Sendable () -> String)? = nil,
        now: @escaping @Sendable () -> Int64 = { Int64(time(nil)) }
    ) {
        self.metricsExporter = metricsExporter
        state = Mutex(State(config: config, settings: Settings(config)))
        self.logger = logger
        self.store = store
        self.now = now
        let checkDestination: @Sendable (DestinationAddress) -> DestinationVerdict = { [weak self] destination in
            guard let self, let address = IPAddress(bytes: destination.bytes) else { return .allow }
            return self.checkDestination(address, port: destination.port)
        }
        // One lane per CPU the process may use: two lanes time-sliced on one CPU would make each lane's clients
        // wait out the other's slices (milliseconds at the 99th percentile).
        lanes = (0..<Int(larder_usable_cpu_count())).map { index in
            Lane(index: index, sweepInterval: { [weak self] in self?.settings.timerInterval ?? .seconds(1) }) { loop in
                UpstreamClient(loop: loop, logger: logger, checkDestination: checkDestination)
            }
        }
        for lane in lanes { lane.upstream.trustCertificates(in: config.tlsCAFile) }
    }

    public var config: Config { state.withLock { $0.config } }

    /// The live config, for a request or a connection to keep: one reference to take, not a struct of arrays and
    /// strings to copy.
    var settings: Settings { state.withLock { $0.settings } }

    /// Binds (or adopts a socket systemd passed in, `inherited`) and starts accepting. Returns the
    /// bound address, e.g. `127.0.0.1:3128`.
    @discardableResult
    public func start(inherited: Int32? = nil) throws -> String {
        var listen = config.listen
        let descriptor: Int32
        let port: Int
        if let inherited {
            descriptor = inherited
            SocketCalls.prepareAccepted(descriptor)
            port = SocketCalls.localPort(descriptor)
            listen = Config.ListenAddress(host: SocketCalls.localHost(descriptor) ?? listen.host, port: port)
            state.withLock { $0.config.listen = listen }
        } else {
            (descriptor, port) = try SocketCalls.listen(host: listen.host, port: listen.port)
            listen.port = port
            state.withLock { $0.config.listen = listen }
        }
        listenDescriptor = descriptor
        boundPort = port
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: acceptQueue)
        source.setEventHandler { [self] in acceptAll() }
        source.setCancelHandler { Glibc.close(descriptor) }
        acceptSource = source
        source.activate()
        return Config.ListenAddress(host: listen.host, port: port).description
    }

    /// Takes a new config for new requests; connections and the cache carry on.
    public func reload(_ config: Config) {
        state.withLock { $0.config = config }
        for lane in lanes { lane.upstream.trustCertificates(in: config.tlsCAFile) }
    }

    /// Stops accepting, lets in-flight responses finish, and calls `completion` when every
    /// connection is closed or `timeout` has passed, whichever comes first.
    public func drain(completion: @escaping @Sendable (_ leftOpen: Int) -> Void) {
        acceptQueue.sync {
            acceptSource?.cancel()
            acceptSource = nil
        }
        let timeout = config.timeouts.drainMilliseconds
        let once = Mutex(false)
        let finish: @Sendable () -> Void = { [self] in
            guard once.withLock({ done in defer { done = true }; return !done }) else { return }
            completion(state.withLock { $0.connections.count })
        }
        let connections = state.withLock { state -> [Connection] in
            state.draining = true
            state.onIdle = finish
            return Array(state.connections.values)
        }
        if connections.isEmpty { return finish() }
        for connection in connections {
            connection.lane.execute { connection.drain() }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(timeout)), execute: finish)
    }

    /// The libcurl client of the first lane, for origin requests that belong to no lane: the offline queue's
    /// replays.
    public var upstreamClient: UpstreamClient { lanes[0].upstream }

    /// Starts replaying queued requests, and lets queue routes add to it.
    public func attach(_ queue: ReplayQueue) {
        queueBox.withLock { $0 = queue }
        queue.start()
    }

    /// Makes what the cache has accepted durable; call last, after `drain`.
    public func shutdown() {
        replayQueue?.stop()
        store?.flush()
        for lane in lanes { lane.upstream.stop() }
    }

    private func acceptAll() {
        while true {
            let descriptor = accept(listenDescriptor, nil, nil)
            if descriptor < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno == EMFILE || errno == ENFILE {
                    logger.error("accept failed: out of file descriptors", metadata: ["errno": "\(errno)"])
                }
                return
            }
            SocketCalls.prepareAccepted(descriptor)
            let lane = lanes[nextLane.add(1, ordering: .relaxed).oldValue % lanes.count]
            let config = settings.config
            let limits = RequestParser.Limits(
                maxRequestLineBytes: config.limits.maxRequestLineBytes,
                maxHeaderBytes: config.limits.maxHeaderBytes
            )
            let connection = Connection(descriptor: descriptor, lane: lane, server: self, limits: limits)
            state.withLock { $0.connections[ObjectIdentifier(connection)] = connection }
            lane.execute { connection.start() }
        }
    }

    func connectionClosed(_ connection: Connection) {
        let onIdle = state.withLock { state -> (@Sendable () -> Void)? in
            state.connections[ObjectIdentifier(connection)] = nil
            return state.draining && state.connections.isEmpty ? state.onIdle : nil
        }
        onIdle?()
    }

    var openConnectionCount: Int { state.withLock { $0.connections.count } }

    func isOverConnectionLimit(_ connection: Connection) -> Bool {
        state.withLock { $0.connections.count + $0.openTunnels > $0.config.limits.maxConnections }
    }

    /// A client connection became a tunnel, which holds its slot under `limits.maxConnections` until it closes.
    func tunnelOpened() {
        state.withLock { $0.openTunnels += 1 }
    }

    func tunnelClosed() {
        state.withLock { $0.openTunnels -= 1 }
    }

    /// Whether `host:port` names this proxy's own listener.
    func isOwnAddress(host: String, port: Int) -> Bool {
        guard port == boundPort else { return false }
        let listenHost = config.listen.host
        if host.equalsIgnoringASCIICase("localhost") || host.equalsIgnoringASCIICase(listenHost) { return true }
        if let address = IPAddress(host) {
            return address.isLoopback || address == IPAddress(listenHost) || address.bytes.allSatisfy { $0 == 0 }
        }
        return false
    }

    /// The verdict for one resolved destination address.
    func checkDestination(_ address: IPAddress, port: Int) -> DestinationVerdict {
        let config = settings.config
        if config.denyDestinations.contains(where: { $0.contains(address) }) { return .prohibited }
        if port == boundPort, address.isLoopback || address == IPAddress(config.listen.host) { return .loop }
        return .allow
    }

    func backoff(for url: AbsoluteURL) -> ErrorBackoff {
        guard failingOrigins.load(ordering: .acquiring) > 0 else { return ErrorBackoff() }
        let origin = ErrorBackoff.origin(of: url)
        return backoffs.withLock { $0[origin] } ?? ErrorBackoff()
    }

    func recordOriginFailure(_ url: AbsoluteURL) {
        let origin = ErrorBackoff.origin(of: url)
        let now = self.now()
        backoffs.withLock { backoffs in
            backoffs[origin, default: ErrorBackoff()].recordFailure(at: now)
            failingOrigins.store(backoffs.count, ordering: .releasing)
        }
    }

    func recordOriginSuccess(_ url: AbsoluteURL) {
        // Most requests go to healthy origins: no lock, no write (and no entry) unless one had failed.
        if failingOrigins.load(ordering: .acquiring) > 0 {
            let origin = ErrorBackoff.origin(of: url)
            backoffs.withLock { backoffs in
                if backoffs[origin] != nil { backoffs[origin] = nil }
                failingOrigins.store(backoffs.count, ordering: .releasing)
            }
        }
        replayQueue?.nudge(originOf: url)
    }

    func logUpstreamFailure(_ error: UpstreamError, url: String) {
        logger.warning("upstream failed", metadata: ["url": "\(url)", "error": "\(error.kind.rawValue)", "details": "\(error.details)"])
    }

    func accessLog(_ exchange: Exchange, outcome: String?) {
        // Checked before the metadata is built: that costs more than the request on the hit path.
        guard logger.logLevel <= .info, exchange.config.accessLog else { return }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - exchange.started.uptimeNanoseconds) / 1_000_000
        var metadata: Logger.Metadata = [
            "method": "\(exchange.head?.method ?? "-")",
            "url": "\(exchange.url)",
            "status": "\(exchange.logStatus)",
            "bytes": "\(exchange.logBytes)",
            "ms": "\((elapsed * 10).rounded() / 10)",
            "cache": "\(exchange.cacheStatus)",
            "route": "\(exchange.routeName)",
            "client": "\(exchange.connection.peer?.description ?? "-")",
        ]
        if let outcome { metadata["outcome"] = "\(outcome)" }
        if let error = exchange.logError { metadata["error"] = "\(error.proxyStatusType)" }
        logger.info("access", metadata: metadata)
    }
}
