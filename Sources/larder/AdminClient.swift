import ArgumentParser
import CachePolicy
import Foundation
import Glibc

/// Talks to a running daemon's admin endpoints: one blocking HTTP/1.1 request per call, on loopback.
struct AdminClient {
    struct Response {
        var status: Int
        var body: String
    }

    var host: String
    var port: Int
    var token: String?

    /// `--server`, else the listen address of the config the daemon would use.
    init(server: String?, configPath: String?) throws {
        if let server {
            guard let address = Config.ListenAddress(server) else { throw ValidationError("--server \(server) is not HOST:PORT") }
            host = address.host
            port = address.port
            token = nil
        } else {
            let config = try ConfigLoader(explicitPath: configPath).load()
            // A daemon bound to every address is reached on loopback.
            host = ["0.0.0.0", "::"].contains(config.listen.host) ? "127.0.0.1" : config.listen.host
            port = config.listen.port
            token = config.adminToken
        }
        if let fromEnvironment = ProcessInfo.processInfo.environment["LARDER_ADMIN_TOKEN"], !fromEnvironment.isEmpty {
            token = fromEnvironment
        }
    }

    func send(_ method: String, _ target: String) throws -> Response {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result else {
            throw AdminError("cannot resolve \(host)")
        }
        defer { freeaddrinfo(result) }
        let descriptor = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw AdminError("socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            throw AdminError("no Larder answers at \(host):\(port) (\(String(cString: strerror(errno)))). Is it running? Use --server HOST:PORT.")
        }
        var request = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\nAccept: application/json\r\n"
        if let token { request += "Authorization: Bearer \(token)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
            throw AdminError("could not send the request")
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n"), let statusText = text.split(separator: " ").dropFirst().first,
            let status = Int(statusText)
        else { throw AdminError("the daemon's answer was not HTTP") }
        var body = String(text[headEnd.upperBound...])
        if text[..<headEnd.lowerBound].lowercased().contains("transfer-encoding: chunked") { body = Self.dechunk(body) }
        return Response(status: status, body: body)
    }

    func json(_ method: String, _ target: String) throws -> Any {
        let response = try send(method, target)
        guard (200..<300).contains(response.status) || response.status == 404 else {
            throw AdminError("the daemon answered \(response.status): \(response.body.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return try JSONSerialization.jsonObject(with: Data(response.body.utf8))
    }

    private static func dechunk(_ text: String) -> String {
        var output = ""
        var rest = Substring(text)
        while let lineEnd = rest.range(of: "\r\n"), let size = Int(rest[..<lineEnd.lowerBound], radix: 16), size > 0 {
            let start = lineEnd.upperBound
            let end = rest.utf8.index(start, offsetBy: size)
            output += rest[start..<end]
            rest = rest[end...].dropFirst(2)
        }
        return output
    }
}

struct AdminError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Options every command that talks to the daemon shares.
struct ServerOptions: ParsableArguments {
    @Option(help: "The daemon's HOST:PORT. Default: the listen address in the config.")
    var server: String?

    @Option(help: "The config file used to find the daemon (as for serve).")
    var config: String?

    func client() throws -> AdminClient {
        try AdminClient(server: server, configPath: config)
    }
}
