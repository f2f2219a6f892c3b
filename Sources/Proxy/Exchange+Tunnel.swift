import CachePolicy
import Dispatch
import Glibc
import HTTPWire
import Upstream

extension Exchange {
    /// CONNECT: a blind tunnel to an allowed port (RFC 9110 §9.3.6). Resolving and connecting
    /// block, so they run off the connection's queue.
    func openTunnel(host: String, port: Int) {
                url = "\(host):\(port)"
        cacheStatus = "BYPASS"
        guard config.connectPorts.contains(port) else { return reject(.connectPortForbidden(port: port)) }
        if server.isOwnAddress(host: host, port: port) {
            return reject(.loopDetected(reason: "\(host):\(port) is this proxy's own address"))
        }
        let server = self.server
        let lane = connection.lane
        let timeout = Int32(clamping: config.timeouts.connectMilliseconds)
        DispatchQueue.global().async {
            let outcome = Result { () throws(UpstreamError) -> Int32 in
                try Self.connectTunnel(host: host, port: port, timeout: timeout, server: server)
            }
            lane.execute { self.tunnelConnected(outcome) }
        }
    }

    private static func connectTunnel(host: String, port: Int, timeout: Int32, server: ProxyServer) throws(UpstreamError) -> Int32 {
        let addresses: [(ip: IPAddress, storage: sockaddr_storage, length: socklen_t)]
        do {
            addresses = try SocketCalls.resolve(host: host, port: port)
        } catch {
            throw UpstreamError(.dnsError, details: "\(error)")
        }
        var lastError = UpstreamError(.dnsError, details: "no address for \(host)")
        for address in addresses {
            switch server.checkDestination(address.ip, port: port) {
            case .prohibited:
                lastError = UpstreamError(.destinationIPProhibited, details: "\(address.ip) is in a denied range")
                continue
            case .loop:
                lastError = UpstreamError(.loopDetected, details: "\(address.ip):\(port) is this proxy")
                continue
            case .allow:
                break
            }
            do {
                return try SocketCalls.connect(to: address.storage, length: address.length, timeoutMilliseconds: timeout)
            } catch let error as SocketCalls.Failure {
                let kind: UpstreamError.Kind = error.code == ETIMEDOUT ? .connectionTimeout : .connectionRefused
                lastError = UpstreamError(kind, details: "\(error)")
            } catch {
                lastError = UpstreamError(.connectionRefused, details: "\(error)")
            }
        }
        throw lastError
    }

    private func tunnelConnected(_ outcome: Result<Int32, UpstreamError>) {
        switch outcome {
        case .failure(let error):
            server.logUpstreamFailure(error, url: url)
            reject(.upstream(error, url: url))
        case .success(let originSocket):
            guard connection.phase == .inExchange else {
                close(originSocket)
                return
            }
            logStatus = 200
            server.accessLog(self, outcome: "tunnel")
            let (clientSocket, pending) = connection.handOff()
            let established = Array("HTTP/1.1 200 Connection Established\r\nVia: 1.1 \(config.viaName)\r\n\r\n".utf8)
            // A tunnel's bytes are not the lane's work: they move on a queue of their own.
            let tunnelQueue = DispatchQueue(label: "larder.tunnel", target: .global())
            server.tunnelOpened()
            let tunnel = Tunnel(
                client: clientSocket, origin: originSocket, toClient: established, toOrigin: pending,
                idleLimit: UInt64(max(0, config.timeouts.tunnelIdleMilliseconds)) * 1_000_000, queue: tunnelQueue,
                onClose: { [server, url] _, idle in
                    if idle {
                        server.logger.info("tunnel closed after idling", metadata: ["target": "\(url)"])
                    }
                    server.tunnelClosed()
                }
            )
            tunnelQueue.async { tunnel.start() }
        }
    }
}
