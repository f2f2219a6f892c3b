/// One HTTP/1.x response as `RawClient` read it off the wire, parsed by the harness alone.
struct RawResponse: Sendable {
    var version: String
    var status: Int
    var reason: String
    var headers: [(name: String, value: String)]
    /// Decoded from `Content-Length` or chunked framing (or read to the close when neither is given).
    var body: [UInt8]

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
}
