import HTTPWire

/// Derives the primary cache key of a request: its method and normalised URL (lowercase scheme
/// and host, default port dropped), as RFC 9111 §2 describes. HEAD looks up the stored GET.
public enum CacheKey {
    public static func primary(method: String, url: AbsoluteURL) -> String {
        let keyMethod = method == "HEAD" ? "GET" : method
        return "\(keyMethod) \(url.description)"
    }
}
