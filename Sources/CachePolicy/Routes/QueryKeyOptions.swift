/// How the query string joins a cache key. Parameter names compare as sent (case-sensitive, percent-encoding
/// kept); the URL sent to the origin is never changed.
public struct QueryKeyOptions: Sendable, Equatable {
    /// Parameter order does not matter: parameters are sorted by name, and repeats of one name keep their order.
    public var sort = false
    /// Parameters dropped from the key: names or globs such as `utm_*` (`*` matches any characters).
    public var ignore: [NamePattern] = []
    /// When set, only these parameters join the key (then `ignore` still drops some of them).
    public var only: [NamePattern]?

    public init() {}

    public var isDefault: Bool { !sort && ignore.isEmpty && only == nil }

    /// Whether the parameter called `name` joins the key.
    func keeps(name: Substring) -> Bool {
        if let only, !only.contains(where: { $0.matches(name) }) { return false }
        return !ignore.contains { $0.matches(name) }
    }
}
