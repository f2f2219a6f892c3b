import ArgumentParser
import CachePolicy
import CacheStore
import Dispatch
import Glibc
import Logging
import Proxy
import ReplayQueue
import Upstream

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the proxy (the default command).")

    @Option(help: "Listen on HOST:PORT (port 0 picks a free port). Overrides the config's \"listen\".")
    var listen: String?

    @Option(help: "The config file. Default: $LARDER_CONFIG, then /etc/larder/larder.json, else built-in defaults.")
    var config: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical. Overrides the config's log.level.")
    var logLevel: String?

    func run() throws {
        let loader = ConfigLoader(explicitPath: config)
        var settings: Config
        do {
            settings = try loader.load()
        } catch {
            FileHandleLite.standardError("larder: the config \(loader.path ?? "") is invalid:\n\(error)\n")
            throw ExitCode(ConfigLoader.badConfigExitCode)
        }
        if let listen {
            guard let address = Config.ListenAddress(listen) else {
                throw ValidationError("--listen \(listen) is not HOST:PORT")
            }
            settings.listen = address
        }
        let level = Logger.Level(rawValue: logLevel ?? settings.logLevel) ?? .info
        LoggingSystem.bootstrap { label in LogfmtHandler(label: label, level: level) }
        let logger = Logger(label: "larder")
        for warning in settings.warnings {
            logger.warning("config", metadata: ["path": "\(warning.path)", "problem": "\(warning.reason)"])
        }

        // A client that goes away mid-write must not kill the daemon.
        signal(SIGPIPE, SIG_IGN)
        let metrics = MetricsExporter()
        let store = openStore(settings, logger: logger)
        metrics.observe(store)
        let server = ProxyServer(config: settings, store: store, logger: logger, metricsExporter: metrics.render)
        if let queue = openQueue(settings, server: server, logger: logger) {
            server.attach(queue)
            metrics.observe(queue)
        }
        let notifier = SystemdNotifier()
        let address: String
        do {
            address = try server.start(inherited: SocketActivation.listeningDescriptor())
        } catch {
            logger.critical("cannot listen", metadata: ["address": "\(settings.listen)", "error": "\(error)"])
            throw ExitCode(1)
        }
        logger.info("listening", metadata: ["address": "\(address)", "config": "\(loader.path ?? "built-in")"])
        Signals.install(server: server, loader: loader, listenOverride: listen, notifier: notifier, logger: logger)
        notifier.ready(status: "listening on \(address)")
        dispatchMain()
    }
}

/// Malloc tuned for a resident set within the budget (64 MiB plus the memory tier): one arena per CPU Larder may use
/// (one per lane) instead of glibc's eight per CPU, and a fixed 128 KiB mmap threshold. Measured on the miss workload
/// (Benchmarks/run.sh, 256 MiB tier, 2 CPUs): malloc held 21 MiB freed but resident with two arenas and the default
/// threshold, 9 MiB with both settings; peak RSS 321 MiB before, 312 MiB after. Set before other threads allocate.
/// Opens the cache; a cache that cannot be opened is logged and Larder proxies without it.
private func openStore(_ config: Config, logger: Logger) -> CacheStore? {
    let directory = Directories.cache(config)
    let limits = StoreLimits(
        memoryMaxBytes: Int(config.cache.memoryMaxBytes),
        diskMaxBytes: Int(config.cache.diskMaxBytes),
        maxObjectSize: Int(config.cache.maxObjectSize)
    )
    do {
        return try CacheStore(directory: directory, limits: limits, logger: logger)
    } catch {
        logger.error("cache unavailable; proxying without it", metadata: ["directory": "\(directory)", "error": "\(error)"])
        return nil
    }
}

/// Opens the offline queue in the state directory; without it, queue routes answer 502 as others do.
private func openQueue(_ config: Config, server: ProxyServer, logger: Logger) -> ReplayQueue? {
    let path = Directories.state() + "/queue.sqlite"
    do {
        return try ReplayQueue(
            path: path,
            settings: QueueSettings(
                maxBodySize: Int(config.queue.maxBodySize), maxAttempts: config.queue.maxAttempts,
                maxAgeSeconds: config.queue.maxAgeSeconds, backoffBase: config.queue.backoffBaseMilliseconds,
                backoffMax: config.queue.backoffMaxMilliseconds
            ),
            upstream: server.upstreamClient, logger: logger,
            timeouts: UpstreamTimeouts(
                connectMilliseconds: Int(config.timeouts.connectMilliseconds),
                readSeconds: Int((config.timeouts.readMilliseconds + 999) / 1000)
            ),
            onDelivery: { server.replayDelivered($0) }
        )
    } catch {
        logger.error("offline queue unavailable", metadata: ["path": "\(path)", "error": "\(error)"])
        return nil
    }
}

/// Writes to stderr without Foundation.
enum FileHandleLite {
    static func standardError(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { _ = write(2, $0.baseAddress, $0.count) }
    }
}
