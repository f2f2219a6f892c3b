/// `key=value` pairs, values bare or double-quoted with backslash escapes: how logfmt lines and structured-field
/// parameters (`Proxy-Status`, `Cache-Status`) both read, for the tests that take them apart.
enum KeyValueParameters {
    /// Pairs in order of appearance (a repeated key keeps its last value). `skipping` separates pairs; a bare value
    /// ends at `bareValueEnd`.
    static func parse(_ text: Substring, skipping: Set<Character>, bareValueEnd: Character) -> [String: String] {
        var fields: [String: String] = [:]
        var rest = text
        while !rest.isEmpty {
            rest = rest.drop { skipping.contains($0) }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let key = String(rest[..<equals])
            rest = rest[rest.index(after: equals)...]
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        value.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        break
                    } else {
                        value.append(character)
                    }
                }
            } else {
                value = String(rest.prefix { $0 != bareValueEnd })
                rest = rest.dropFirst(value.count)
            }
            fields[key] = value
        }
        return fields
    }
}
