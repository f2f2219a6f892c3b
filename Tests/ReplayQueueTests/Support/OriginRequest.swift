/// One request as the test origin read it off the socket.
struct OriginRequest: Sendable, Equatable {
    var method: String
    var target: String
    var fields: [Field]
    var body: [UInt8]

    struct Field: Sendable, Equatable {
        var name: String
        var value: String
    }

    /// The first value of `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    func count(of name: String) -> Int {
        fields.filter { $0.name.lowercased() == name.lowercased() }.count
    }

    var bodyText: String { String(decoding: body, as: UTF8.self) }
}
