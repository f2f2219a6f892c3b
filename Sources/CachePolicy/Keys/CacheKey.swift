import HTTPWire

/// Derives the cache key of a request. The default is its method and normalised URL (lowercase scheme and host,
/// default port dropped), as RFC 9111 §2 describes; HEAD looks up the stored GET. A route's `key` options add to it.
public enum CacheKey {
    public static func primary(method: String, url: AbsoluteURL) -> String {
        let keyMethod = method == "HEAD" ? "GET" : method
        return "\(keyMethod) \(url.description)"
    }

    /// The key of `request` to `url` on `route`:
    ///
    /// `[version ]METHOD URL[ name="value" | name=digest | name]…[ body=digest]`
    ///
    /// - `key.version` comes first, so entries of one version share a prefix;
    /// - the URL's query is rewritten by `key.query` (`ignore`, `only`, then `sort`), and left as sent otherwise;
    /// - each `key.headers` field follows in config order: its value quoted (lines joined by ", "), or its bare name
    ///   when absent; `Authorization` and `Cookie` values only as `credentialDigest` of them, never in clear;
    /// - with `storeAuthorized`, a digest of `Authorization` joins the key even when `key.headers` does not name it,
    ///   so one user never gets another's response;
    /// - with `key.body`, `bodyDigest` (a digest of the request body the edge computed, see
    ///   `Route.needsBodyDigest`) comes last.
    ///
    /// The route's name never joins the key: routes that take the same URL share its entries, and renaming a route
    /// keeps them; `key.version` is the way to orphan them. CachePolicy hashes nothing itself: `credentialDigest`
    /// is the edge's (a SHA-256 in hex).
    public static func derive(
        method: String,
        url: AbsoluteURL,
        request: RequestHead,
        route: Route,
        bodyDigest: String? = nil,
        credentialDigest: (String) -> String
    ) -> String {
        if isPrimary(request: request, route: route) { return primary(method: method, url: url) }
        let options = route.options.key
        let digestsAuthorization = route.options.storeAuthorized && !options.headers.contains("authorization")
        var key = ""
        if let version = options.version { key += version + " " }
        key += method == "HEAD" ? "GET" : method
        key += " \(url.scheme)://\(url.authority)\(url.path)"
        if let query = url.query {
            if options.query.isDefault {
                key += "?" + query
            } else if let kept = keyQuery(query, options: options.query) {
                key += "?" + kept
            }
        }
        for name in options.headers {
            key += " " + name
            guard let value = VaryMatch.normalizedValue(of: name, in: request.headers) else { continue }
            if KeyOptions.credentialHeaders.contains(name) {
                key += "=" + credentialDigest(value)
            } else {
                key += "=" + quoted(value)
            }
        }
        if digestsAuthorization, let value = VaryMatch.normalizedValue(of: "authorization", in: request.headers) {
            key += " authorization=" + credentialDigest(value)
        }
        if options.body, let bodyDigest { key += " body=" + bodyDigest }
        return key
    }

    /// Whether `derive` gives `request` on `route` its `primary` key: the route's `key` options are the default, and
    /// no `Authorization` digest joins it.
    public static func isPrimary(request: RequestHead, route: Route) -> Bool {
        let options = route.options.key
        guard options.isDefault else { return false }
        let digestsAuthorization = route.options.storeAuthorized && !options.headers.contains("authorization")
        return !(digestsAuthorization && request.headers.contains("Authorization"))
    }

    /// The query's parameters that join the key, in order or sorted by name (a stable sort, so repeats of one name
    /// keep their order); nil when none is left. Empty parameters (`a=1&&b=2`) are dropped.
    static func keyQuery(_ query: String, options: QueryKeyOptions) -> String? {
        var parameters: [(name: Substring, text: Substring)] = []
        for parameter in query.split(separator: "&") {
            let name = parameter.prefix { $0 != "=" }
            if options.keeps(name: name) { parameters.append((name, parameter)) }
        }
        if parameters.isEmpty { return nil }
        if options.sort {
            parameters = parameters.enumerated().sorted { lhs, rhs in
                lhs.element.name == rhs.element.name ? lhs.offset < rhs.offset : lhs.element.name < rhs.element.name
            }.map(\.element)
        }
        return parameters.map(\.text).joined(separator: "&")
    }

    /// A header value as a quoted string, `"` and `\` escaped, so no value can pass for the next component.
    static func quoted(_ value: String) -> String {
        var result = "\""
        for character in value {
            if character == "\"" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result + "\""
    }
}
