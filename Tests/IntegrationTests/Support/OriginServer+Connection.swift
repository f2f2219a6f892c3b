/// How the origin reads requests from one connection and writes the scripted responses.
extension OriginServer {
    /// Serves requests on one connection until either side closes it or the server stops.
    static func serve(
        _ socket: Int32,
        handler: @Sendable (OriginRequest) -> OriginResponse,
        log: OriginRequestLog,
        stopped: Latch
    ) {
        var stream = ByteStream(fd: socket)
        while !stopped.isFired {
            do {
                guard let bytes = try stream.readHead(deadline: nil) else { return }
                guard let head = MessageHead(bytes), let (method, target, version) = requestLine(head.startLine) else {
                    try? Socket.sendAll(socket, Array(badRequest.utf8))
                    return
                }
                if version == "HTTP/1.1" && head.tokens("Expect").contains("100-continue") {
                    // Answer at once, so a client that waits for 100 (libcurl does, for large bodies) never stalls.
                    try Socket.sendAll(socket, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
                }
                let body: [UInt8]
                if head.tokens("Transfer-Encoding").last == "chunked" {
                    body = try stream.readChunkedBody(deadline: nil)
                } else if let length = head.field("Content-Length") {
                    guard let count = Int(length), count >= 0 else {
                        try? Socket.sendAll(socket, Array(badRequest.utf8))
                        return
                    }
                    body = try stream.read(count: count, deadline: nil)
                } else {
                    body = []
                }
                let request = log.record(
                    OriginRequest(
                        method: method, target: target, version: version, headers: head.fields, body: body,
                        sequence: 0
                    )
                )
                let tokens = head.tokens("Connection")
                let clientCloses = version == "HTTP/1.0" ? !tokens.contains("keep-alive") : tokens.contains("close")
                let keepOpen = try respond(
                    handler(request), to: request, clientCloses: clientCloses, on: socket, stopped: stopped
                )
                guard keepOpen else {
                    Socket.shutdownWrite(socket)
                    return
                }
            } catch {
                // The client went away or sent something unreadable; either way this connection is done.
                return
            }
        }
    }

    /// Writes `response` (or its fault) and says whether the connection may carry another request.
    private static func respond(
        _ response: OriginResponse,
        to request: OriginRequest,
        clientCloses: Bool,
        on socket: Int32,
        stopped: Latch
    ) throws -> Bool {
        if response.delay > .zero && stopped.wait(timeout: response.delay) { return false }
        var cut: Int? = nil
        var stallAfterCut = false
        switch response.fault {
        case .closeWithoutResponse:
            return false
        case .garbage:
            try Socket.sendAll(socket, Array("NOT HTTP\r\n\r\n".utf8))
            return false
        case .stall:
            // Swallow whatever comes until the client closes or the stopping server shuts the socket down.
            while let bytes = try? Socket.receive(socket, deadline: nil), !bytes.isEmpty {}
            return false
        case .cutBody(let afterBytes):
            cut = afterBytes
        case .stallBody(let afterBytes):
            cut = afterBytes
            stallAfterCut = true
        case nil:
            break
        }

        let status = response.status
        let hasNoBody = (100..<200).contains(status) || status == 204 || status == 304
        var fields = response.headers
        let given = Set(fields.map { $0.0.lowercased() })
        if !hasNoBody && !given.contains("transfer-encoding") {
            if case .chunked = response.body {
                fields.append(("Transfer-Encoding", "chunked"))
            } else if !given.contains("content-length") {
                fields.append(("Content-Length", "\(response.body.count)"))
            }
        }
        fields.append(("X-Origin-Seq", "\(request.sequence)"))
        let serverCloses = response.headers.contains {
            $0.0.lowercased() == "connection" && $0.1.lowercased().contains("close")
        }
        if clientCloses && !given.contains("connection") { fields.append(("Connection", "close")) }

        var head = "HTTP/1.1 \(status) \(response.reason ?? reasonPhrase(status))\r\n"
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try Socket.sendAll(socket, Array(head.utf8))

        if request.method != "HEAD" && !hasNoBody {
            try writeBody(response.body, stoppingAfter: cut, to: socket)
        }
        if stallAfterCut {
            while let bytes = try? Socket.receive(socket, deadline: nil), !bytes.isEmpty {}
            return false
        }
        return cut == nil && !clientCloses && !serverCloses
    }

    /// Writes the body's payload with its framing; with `limit`, stops after that many payload bytes.
    private static func writeBody(_ body: OriginResponse.Body, stoppingAfter limit: Int?, to socket: Int32) throws {
        switch body {
        case .bytes(let bytes):
            try Socket.sendAll(socket, bytes.prefix(limit ?? bytes.count))
        case .generated(let count):
            let total = min(count, limit ?? count)
            var offset = 0
            while offset < total {
                let length = min(generatedWrite, total - offset)
                let phase = offset % 251
                try Socket.sendAll(socket, generatedPattern[phase..<phase + length])
                offset += length
            }
        case .chunked(let chunks):
            var remaining = limit ?? Int.max
            for chunk in chunks where !chunk.isEmpty {
                try Socket.sendAll(socket, Array((String(chunk.count, radix: 16) + "\r\n").utf8))
                if chunk.count > remaining {
                    try Socket.sendAll(socket, chunk.prefix(remaining))
                    return
                }
                try Socket.sendAll(socket, chunk + Array("\r\n".utf8))
                remaining -= chunk.count
            }
            if limit == nil { try Socket.sendAll(socket, Array("0\r\n\r\n".utf8)) }
        }
    }

    /// `METHOD SP target SP HTTP/x.y`, or `nil`.
    private static func requestLine(_ line: String) -> (String, String, String)? {
        let parts = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, parts[2].hasPrefix("HTTP/") else { return nil }
        return (parts[0], parts[1], parts[2])
    }

    private static let badRequest = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

    private static let generatedWrite = 64 * 1024

    /// One write's worth of the `.generated` pattern plus a full period, so any offset is a slice of it.
    private static let generatedPattern: [UInt8] = (0..<(generatedWrite + 251)).map {
        OriginResponse.Body.generatedByte(at: $0)
    }

    private static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 410: "Gone"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}
