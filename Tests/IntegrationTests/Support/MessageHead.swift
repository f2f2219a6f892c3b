/// One HTTP/1.x head split into its start line and fields, parsed by the harness alone (never by HTTPWire),
/// so a parsing bug in Larder cannot hide on both sides of a test.
struct MessageHead: Sendable {
    var startLine: String
    var fields: [(name: String, value: String)]

    /// Parses a head (without its terminating blank line). Fails on a field line with no colon, an empty or
    /// spaced field name, or obsolete line folding.
    init?(_ bytes: some Sequence<UInt8>) {
        var lines = String(decoding: Array(bytes), as: UTF8.self).lines
        guard !lines.isEmpty, !lines[0].isEmpty else { return nil }
        startLine = lines.removeFirst()
        fields = []
        for line in lines {
            guard let field = Self.field(line) else { return nil }
            fields.append(field)
        }
    }

    /// Splits `name: value`, trimming optional whitespace around the value; `nil` if it is not a field line.
    static func field(_ line: String) -> (name: String, value: String)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = String(line[..<colon])
        guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "\t" }) else { return nil }
        return (name, String(line[line.index(after: colon)...]).trimmingSpaces)
    }

    /// The first value of `name`, compared case-insensitively.
    func field(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every comma-separated element of every `name` field, lowercased (for `Connection`, `Transfer-Encoding`).
    func tokens(_ name: String) -> [String] {
        fields.filter { $0.name.lowercased() == name.lowercased() }
            .flatMap { $0.value.split(separator: ",") }
            .map { String($0).trimmingSpaces.lowercased() }
    }
}
