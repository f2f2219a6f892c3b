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
        let parameters = KeyValueParameters.parse(Substring(parts[1]), skipping: [" ", ";"], bareValueEnd: ";")
        error = parameters["error"]
        details = parameters["details"]
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
