import CachePolicy
import Dispatch
import Glibc
import Logging
import Proxy

/// SIGTERM/SIGINT drain and exit 0; SIGHUP reloads the config, keeping the running one if the
/// new file is bad.
enum Signals {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    static func install(
        server: ProxyServer,
        loader: ConfigLoader,
        listenOverride: String?,
        notifier: SystemdNotifier,
        logger: Logger
    ) {
        let queue = DispatchQueue(label: "larder.signals")
        for number in [SIGTERM, SIGINT, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if number == SIGHUP {
                    notifier.reloading()
                    reload(server: server, loader: loader, listenOverride: listenOverride, logger: logger)
                    notifier.reloaded(status: "listening on \(server.config.listen)")
                } else {
                    notifier.stopping()
                    stop(server: server, logger: logger)
                }
            }
            source.activate()
            sources.append(source)
        }
    }

    private static func reload(server: ProxyServer, loader: ConfigLoader, listenOverride: String?, logger: Logger) {
        do {
            var config = try loader.load()
            let bound = server.config.listen
            // The socket stays where it is; moving it needs a restart.
            if listenOverride == nil && config.listen != bound {
                logger.warning("reload: a new listen address takes effect after a restart", metadata: ["listen": "\(config.listen)"])
            }
            config.listen = bound
            if config.queue != server.config.queue {
                logger.notice("reload: queue settings take effect after a restart")
            }
            for warning in config.warnings {
                logger.warning("config", metadata: ["path": "\(warning.path)", "problem": "\(warning.reason)"])
            }
            server.reload(config)
            logger.info("reloaded", metadata: ["config": "\(loader.path ?? "built-in")"])
        } catch {
            logger.error("reload failed; keeping the running config", metadata: ["problems": "\(error)"])
        }
    }

    private static func stop(server: ProxyServer, logger: Logger) {
        logger.info("stopping: draining connections")
        server.drain { leftOpen in
            if leftOpen > 0 {
                logger.warning("drain timed out", metadata: ["connections": "\(leftOpen)"])
            }
            server.shutdown()
            logger.info("stopped")
            exit(0)
        }
    }
}
