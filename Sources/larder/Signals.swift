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
        overrides: (listen: Config.ListenAddress, level: Logger.Level),
        logger: Logger
    ) {
        let queue = DispatchQueue(label: "larder.signals")
        for number in [SIGTERM, SIGINT, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if number == SIGHUP {
                    reload(server: server, loader: loader, listen: overrides.listen, logger: logger)
                } else {
                    stop(server: server, logger: logger)
                }
            }
            source.activate()
            sources.append(source)
        }
    }

    private static func reload(server: ProxyServer, loader: ConfigLoader, listen: Config.ListenAddress, logger: Logger) {
        do {
            var config = try loader.load()
            // The socket stays bound where it is; a new listen address needs a restart.
            if config.listen != server.config.listen {
                logger.warning("reload: listen address changes need a restart", metadata: ["listen": "\(config.listen)"])
            }
            config.listen = listen
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
            logger.info("stopped")
            exit(0)
        }
    }
}
