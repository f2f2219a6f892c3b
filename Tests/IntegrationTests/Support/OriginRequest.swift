/// One request as the origin received it, recorded in arrival order.
struct OriginRequest: Sendable {
    var method: String
    var target: String
    var version: String
    /// In the order sent, names spelled as sent.
    var headers: [(name: String, value: String)]
    /// Decoded from `Content-Length` or chunked framing.
    var body: [UInt8]
    /// 1, 2, 3… per server; the same number the response carries in `X-Origin-Seq`.
    var sequence: Int

    /// The first value of `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every value of `name`, in order.
    func headers(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The path part of `target`, without the query.
    var path: String { String(target.prefix { $0 != "?" }) }
}
