extension RouteOptions {
    /// The policies each option means something under. An option a route writes that its policy ignores is a
    /// warning, not an error, so one route can be switched between policies (say to `cache-only` for an offline
    /// run) without editing its other options.
    static let policiesByOption: [(option: String, policies: [RoutePolicy])] = [
        ("ttl", [.cacheFirst, .staleWhileRevalidate, .cacheOnly]),
        ("staleIfError", [.standard, .cacheFirst, .networkFirst, .staleWhileRevalidate]),
        ("maxStale", [.staleWhileRevalidate]),
        ("timeout", [.standard, .cacheFirst, .networkFirst, .staleWhileRevalidate, .networkOnly]),
        ("errorBackoff", [.standard, .cacheFirst, .networkFirst, .staleWhileRevalidate]),
        ("clientRefresh", [.standard, .cacheFirst, .networkFirst, .staleWhileRevalidate]),
        ("storeAuthorized", [.standard, .cacheFirst, .networkFirst, .staleWhileRevalidate, .cacheOnly]),
        ("storeSetCookie", [.standard, .cacheFirst, .networkFirst, .staleWhileRevalidate]),
        ("key", [.standard, .cacheFirst, .networkFirst, .staleWhileRevalidate, .cacheOnly]),
        ("storeIf", [.standard, .cacheFirst, .networkFirst, .staleWhileRevalidate]),
        ("queue", [.standard, .cacheFirst, .networkFirst, .staleWhileRevalidate, .networkOnly]),
    ]

    /// Methods that never change anything at the origin (RFC 9110 §9.2.1): nothing for the replay queue.
    static let safeMethods = ["GET", "HEAD", "OPTIONS", "TRACE"]

    /// The checks that need a route's complete options: `match` is nil for `defaults`.
    func check(in reader: inout ObjectReader, match: RouteMatch?, warnings: inout [ConfigProblem]) {
        let quotedPolicy = "\"\(policy.rawValue)\""
        // A route that does not write `policy` (or clear `ttl` or `maxStale`) inherits them from defaults, checked
        // there.
        if match == nil || reader.has("policy") || reader.isNull("ttl") || reader.isNull("maxStale") {
            if (policy == .cacheFirst || policy == .staleWhileRevalidate) && ttlSeconds == nil {
                reader.fail(
                    "ttl",
                    "required with policy \(quotedPolicy): how long a stored response is served without asking the "
                        + "origin, e.g. \"5m\"")
            }
            if policy == .staleWhileRevalidate && maxStaleSeconds == nil {
                reader.fail(
                    "maxStale",
                    "required with policy \(quotedPolicy): how long past ttl a stored response is still served "
                        + "while it is refreshed, e.g. \"1h\"")
            }
            if policy == .networkFirst && staleIfErrorSeconds == nil {
                warnings.append(
                    ConfigProblem(
                        path: reader.childPath("staleIfError"),
                        reason: "not set, so \"network-first\" never answers from the cache; set how old a stored "
                            + "response may be to answer when the origin fails, e.g. \"1d\""))
            }
        }
        if key.body {
            let path = "\(reader.childPath("key")).body"
            if match != nil && policy == .standard {
                warnings.append(
                    ConfigProblem(
                        path: path,
                        reason: "has no effect with policy \"standard\", which never caches POST, PUT or PATCH "
                            + "(RFC 9111); use \"cache-first\", \"network-first\" or \"stale-while-revalidate\""))
            }
            if let match {
                if !match.methods.contains(where: KeyOptions.bodyMethods.contains) {
                    reader.report(
                        ConfigProblem(
                            path: path,
                            reason: "only POST, PUT and PATCH requests have a body to key on, and match.methods lists "
                                + "none of them; list them, e.g. \"methods\": [\"GET\", \"POST\"]"))
                }
            } else {
                reader.report(
                    ConfigProblem(
                        path: path,
                        reason: "belongs on a route whose match.methods lists POST, PUT or PATCH, not in defaults"))
            }
        }
        if let match, queue, reader.has("queue"), !match.methods.isEmpty,
            match.methods.allSatisfy(RouteOptions.safeMethods.contains)
        {
            reader.fail(
                "queue",
                "queues unsafe requests (POST, PUT, PATCH, DELETE) for replay, and match.methods lists only safe ones")
        }
        guard match != nil else { return }
        for (option, policies) in RouteOptions.policiesByOption where reader.has(option) && !policies.contains(policy) {
            var reason =
                "has no effect with policy \(quotedPolicy); it applies to "
                + policies.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            if option == "ttl" && policy == .standard {
                reason += " (under \"standard\" the origin's headers decide; \"cache-first\" keeps responses for ttl)"
            }
            warnings.append(ConfigProblem(path: reader.childPath(option), reason: reason))
        }
    }
}
