import HTTPWire

/// The `Cache-Control` directives `CacheControl` understands (RFC 9111 §5.2, RFC 5861, RFC 8246), by their
/// lower-case names.
enum CacheDirective: String, CaseIterable {
    case maxAge = "max-age"
    case sMaxAge = "s-maxage"
    case minFresh = "min-fresh"
    case staleWhileRevalidate = "stale-while-revalidate"
    case staleIfError = "stale-if-error"
    case maxStale = "max-stale"
    case noStore = "no-store"
    case noCache = "no-cache"
    case `private` = "private"
    case `public` = "public"
    case mustRevalidate = "must-revalidate"
    case proxyRevalidate = "proxy-revalidate"
    case mustUnderstand = "must-understand"
    case noTransform = "no-transform"
    case immutable = "immutable"
    case onlyIfCached = "only-if-cached"

    /// The directive named by `name`, compared case-insensitively (RFC 9111 §5.2), or nil for one not understood.
    /// Matches bytes against the names, so no lower-cased String is built for every directive of every request.
    init?(name: UnsafeBufferPointer<UInt8>) {
        for (bytes, directive) in Self.names where bytes.count == name.count {
            if bytes.withUnsafeBufferPointer({ ASCII.equalIgnoringCase($0, name) }) {
                self = directive
                return
            }
        }
        return nil
    }

    /// Each directive's name as bytes, made once. Walking `allCases` and each case's `rawValue` String instead took
    /// ten times as long (perf on the miss path: 1.0 % of Larder's CPU against 0.1 %), and this runs for every
    /// directive of every response stored.
    private static let names: [(bytes: [UInt8], directive: CacheDirective)] = allCases.map {
        (Array($0.rawValue.utf8), $0)
    }
}
