/// One `msg=access` line of the daemon's logfmt log, as fields, parsed by the tests alone.
struct AccessLogLine {
    var fields: [String: String]

    /// Parses a logfmt line; nil unless it is an access line.
    init?(_ line: String) {
        var fields: [String: String] = [:]
        var rest = Substring(line)
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " }
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
                value = String(rest.prefix { $0 != " " })
                rest = rest.dropFirst(value.count)
            }
            fields[key] = value
        }
        guard fields["msg"] == "access" else { return nil }
        self.fields = fields
    }

    subscript(_ key: String) -> String? { fields[key] }
}

extension Daemon {
    /// Every access line logged so far, in order.
    var accessLines: [AccessLogLine] { logLines.compactMap(AccessLogLine.init) }
}
