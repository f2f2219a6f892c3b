/// The parameters of Larder's member of a `Cache-Status` field (RFC 9211 §2), parsed by the test alone:
/// `larder; fwd=uri-miss; fwd-status=200; stored; ttl=60` gives `["fwd": "uri-miss", "fwd-status": "200",
/// "stored": "", "ttl": "60"]`. A bare key maps to "", a quoted string to its contents.
struct CacheStatusParameters: Sendable, Equatable {
    var cache: String
    var parameters: [String: String]

    init?(_ field: String?) {
        guard let field else { return nil }
        let parts = field.split(separator: ";").map { String($0).trimmingSpaces }
        guard let cache = parts.first, !cache.isEmpty else { return nil }
        self.cache = cache
        parameters = [:]
        for part in parts.dropFirst() {
            let pieces = part.split(separator: "=", maxSplits: 1).map(String.init)
            var value = pieces.count > 1 ? pieces[1] : ""
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            parameters[pieces[0]] = value
        }
    }

    subscript(name: String) -> String? { parameters[name] }

    /// Whether the bare key `name` (`hit`, `stored`, `collapsed`) is present.
    func has(_ name: String) -> Bool { parameters[name] != nil }

    var ttl: Int? { parameters["ttl"].flatMap { Int($0) } }
}

extension CurlResult {
    /// Larder's `Cache-Status` member, parsed: the last field line, which Larder writes after any from upstream.
    var cacheStatus: CacheStatusParameters? { CacheStatusParameters(headers("Cache-Status").last) }

    /// The `Age` field as a number.
    var age: Int? { header("Age").flatMap { Int($0) } }
}
