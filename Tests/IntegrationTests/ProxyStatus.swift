/// A `Proxy-Status` field value (RFC 9209 §2) split into the proxy's name and its parameters, so tests can
/// compare the error type without caring how `details` is worded.
struct ProxyStatus: Equatable {
    var name: String
    var error: String?
    var details: String?

    /// Parses `name; error=type; details="…"`; nil for an absent field.
    init?(_ value: String?) {
        guard let value else { return nil }
        let parts = value.split(separator: ";", maxSplits: 1).map { String($0).trimmingSpaces }
        guard let first = parts.first, !first.isEmpty else { return nil }
        name = first
        guard parts.count > 1 else { return }
        var rest = Substring(parts[1])
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == ";" }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let key = String(rest[..<equals])
            rest = rest[rest.index(after: equals)...]
            var text = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        text.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        break
                    } else {
                        text.append(character)
                    }
                }
            } else {
                text = String(rest.prefix { $0 != ";" })
                rest = rest.dropFirst(text.count)
            }
            switch key {
            case "error": error = text
            case "details": details = text
            default: break
            }
        }
    }
}

extension CurlResult {
    /// The parsed `Proxy-Status` of the final response.
    var proxyStatus: ProxyStatus? { ProxyStatus(header("Proxy-Status")) }
}

extension RawResponse {
    /// The parsed `Proxy-Status` of this response.
    var proxyStatus: ProxyStatus? { ProxyStatus(header("Proxy-Status")) }
}
