import Foundation
import Glibc

/// `openssl s_server -www` with a fresh self-signed certificate for 127.0.0.1: an HTTPS origin no client trusts
/// unless given `certificatePath` as its CA. Stopped (SIGTERM to the process it started) on deinit.
final class TLSOrigin: Sendable {
    let port: Int
    /// The server's certificate (PEM), which is its own CA.
    var certificatePath: String { directory.path("cert.pem") }
    private let process: ChildProcess
    private let directory: TemporaryDirectory

    private init(port: Int, process: ChildProcess, directory: TemporaryDirectory) {
        self.port = port
        self.process = process
        self.directory = directory
    }

    deinit {
        process.signal(SIGTERM)
        process.waitForExitBlocking(timeout: .seconds(5))
    }

    static func start() async throws -> TLSOrigin {
        let directory = try TemporaryDirectory(prefix: "larder-tls")
        let key = directory.path("key.pem")
        let certificate = directory.path("cert.pem")
        let generate = try ChildProcess(
            executable: "/usr/bin/openssl",
            arguments: [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1",
            ],
            environment: [:], stdout: directory.path("req.log"), stderr: directory.path("req.log")
        )
        guard try await generate.waitForExit(timeout: .seconds(20)) == 0 else {
            throw HarnessError.malformed("openssl req failed: \(directory.contents("req.log"))")
        }
        // s_server cannot report the port it bound, so take a free one and release it just before.
        let (probe, port) = try Socket.listen()
        Socket.close(probe)
        let log = directory.path("server.log")
        let process = try ChildProcess(
            executable: "/usr/bin/openssl",
            arguments: ["s_server", "-www", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key", key],
            environment: [:], stdout: log, stderr: log
        )
        let server = TLSOrigin(port: port, process: process, directory: directory)
        try await Poll.value("openssl s_server to accept on port \(port)", timeout: .seconds(10)) { () -> Bool? in
            if let status = process.exitStatus {
                throw HarnessError.malformed("openssl s_server exited (\(status)): \(directory.contents("server.log"))")
            }
            return directory.contents("server.log").contains("ACCEPT") ? true : nil
        }
        return server
    }
}

extension TemporaryDirectory {
    /// The text of a file in this directory, or "" if it cannot be read.
    fileprivate func contents(_ name: String) -> String {
        (try? String(contentsOfFile: path(name), encoding: .utf8)) ?? ""
    }
}
