import HTTPWire

extension Route {
    /// Whether a response fetched for `request` may be stored on this route, judged from its head; then, when
    /// `options.storeIf.checksBody`, the complete body must pass `storeIf.acceptsBody` before the entry is committed.
    ///
    /// - `standard`: `RFC9111.storability` with the route's `storeAuthorized`/`storeSetCookie`, then `storeIf`.
    /// - `cache-first`, `network-first`, `stale-while-revalidate`: the origin's freshness fields are ignored, but
    ///   these still refuse: a method the route does not cache, a request `no-store` (RFC 9111 §5.2.1.5), a non-final,
    ///   206 or 304 status (§3, §3.3, §4.3.4), `no-store` and `private` (§5.2.2.5, §5.2.2.7), `Authorization` unless
    ///   `storeAuthorized` or the response allows it (§3.5), `Set-Cookie` unless `storeSetCookie`, `Vary: *`
    ///   (§4.1); then `storeIf.status` (200 by default) and `storeIf.contentType`, then the size.
    /// - `network-only` and `cache-only` never store (`not-cacheable`).
    ///
    /// `responseDirectives`: the response's `Cache-Control`, when the caller has parsed it already.
    public func storability(
        request: RequestHead,
        response: ResponseHead,
        maxObjectSize: Int? = nil,
        heuristicFreshnessCap: Int64 = StoreOptions.defaultHeuristicFreshnessCap,
        responseDirectives: CacheControl? = nil
    ) -> StoreDecision {
        let given = responseDirectives ?? CacheControl(parsing: response.headers)
        let storeIf = options.storeIf
        switch options.policy {
        case .networkOnly, .cacheOnly:
            return .skip(because: .notCacheable)
        case .standard:
            let storeOptions = StoreOptions(
                storeAuthorized: options.storeAuthorized, storeSetCookie: options.storeSetCookie,
                maxObjectSize: maxObjectSize, heuristicFreshnessCap: heuristicFreshnessCap)
            let decision = RFC9111.storability(
                request: request, response: response, options: storeOptions, responseDirectives: given)
            guard decision == .store else { return decision }
            guard storeIf.allows(status: response.status, policy: .standard),
                storeIf.allows(contentType: response.headers["Content-Type"])
            else { return .skip(because: .storeIf) }
            return .store
        case .cacheFirst, .networkFirst, .staleWhileRevalidate:
            break
        }

        // A HEAD response has no body to store; HEAD is answered from the stored GET (RFC 9110 §9.3.2).
        guard request.method != "HEAD", options.caches(method: request.method, match: match) else {
            return .skip(because: .method)
        }
        if CacheControl(parsing: request.headers).noStore { return .skip(because: .noStoreRequest) }
        let status = response.status
        guard RFC9111.isFinal(status: status) else { return .skip(because: .status) }
        if status == 206 { return .skip(because: .partial) }
        if status == 304 { return .skip(because: .status) }
        if given.noStore { return .skip(because: .noStore) }
        if given.isPrivate { return .skip(because: .privateResponse) }
        if request.headers.contains("Authorization") && !options.storeAuthorized
            && !(given.isPublic || given.hasSMaxAge || given.mustRevalidate)
        {
            return .skip(because: .authorization)
        }
        if response.headers.contains("Set-Cookie") && !options.storeSetCookie { return .skip(because: .setCookie) }
        if response.headers.listContains("Vary", token: "*") { return .skip(because: .varyStar) }
        guard storeIf.allows(status: status, policy: options.policy),
            storeIf.allows(contentType: response.headers["Content-Type"])
        else { return .skip(because: .storeIf) }
        if let maxObjectSize, let length = RFC9111.contentLength(of: response), length > maxObjectSize {
            return .skip(because: .tooLarge(bytes: length))
        }
        return .store
    }

    /// Whether the edge must hash the request body before deriving the key (`CacheKey.derive`'s `bodyDigest`).
    public func needsBodyDigest(method: String) -> Bool {
        options.key.body && KeyOptions.bodyMethods.contains(method) && options.caches(method: method, match: match)
    }
}
