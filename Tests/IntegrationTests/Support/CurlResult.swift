/// What `/usr/bin/curl` got: its exit code, the final response, and what it printed.
struct CurlResult: Sendable {
    /// curl's exit code (0 on success; 7 could not connect, 18 partial body, 28 timeout, 52 empty reply, …).
    var exitCode: Int32
    /// The final response's status; 0 if no head arrived.
    var status: Int
    /// The final response's fields, in order (interim 1xx heads and a proxy's CONNECT reply are skipped).
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// What curl wrote to stdout: `-w` output, since the body goes to a file.
    var stdout: String
    var stderr: String

    /// The first value of `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every value of `name`, in order.
    func headers(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    var bodyText: String { String(decoding: body, as: UTF8.self) }

    var xCache: String? { header("X-Cache") }

    /// The origin's sequence number for this response, if it came from an `OriginServer` at all.
    var originSequence: Int? { header("X-Origin-Seq").flatMap { Int($0) } }

    /// Picks the final response out of a `curl -D` dump, which holds every head curl saw (a proxy's CONNECT
    /// reply, 1xx interim responses, redirects with `-L`) and, after a chunked body, any trailer fields.
    static func finalHead(inDump dump: String) -> (status: Int, headers: [(name: String, value: String)]) {
        var final: (status: Int, headers: [(name: String, value: String)]) = (0, [])
        var current: (status: Int, headers: [(name: String, value: String)])? = nil
        for line in dump.lines {
            if line.hasPrefix("HTTP/") {
                let parts = line.split(separator: " ", maxSplits: 2)
                current = (parts.count > 1 ? Int(parts[1]) ?? 0 : 0, [])
            } else if line.isEmpty {
                if let head = current, !(100..<200).contains(head.status) { final = head }
                current = nil
            } else if current != nil, let field = MessageHead.field(line) {
                current?.headers.append(field)
            }
        }
        if let head = current, !(100..<200).contains(head.status) { final = head }
        return final
    }
}
