import HTTPWire

extension RFC9111 {
    /// Whether a shared cache may store `response` to `request` (RFC 9111 §3), checked in this order so the
    /// reported reason is the most specific one:
    /// method, request `no-store`, status, `no-store`, `private`, `Authorization`, `Set-Cookie`, `Vary: *`,
    /// explicit or heuristic freshness, then size.
    ///
    /// A body whose size is unknown here (no `Content-Length`) is the store's to bound while it streams, and a
    /// body that ends early is the store's to discard (RFC 9111 §3.3): this looks at the head only.
    /// `responseDirectives`: the response's `Cache-Control`, when the caller has parsed it already.
    public static func storability(
        request: RequestHead, response: ResponseHead, options: StoreOptions, responseDirectives: CacheControl? = nil
    ) -> StoreDecision {
        // RFC 9111 §3: the method must be understood and cacheable. A HEAD response carries no body, so Larder
        // stores only GET and answers HEAD from a stored GET (RFC 9110 §9.3.2).
        guard request.method == "GET" else { return .skip(because: .method) }

        // RFC 9111 §5.2.1.5: a request's no-store forbids storing any response to it.
        let asked = CacheControl(parsing: request.headers)
        if asked.noStore { return .skip(because: .noStoreRequest) }

        let given = responseDirectives ?? CacheControl(parsing: response.headers)
        let status = response.status
        // RFC 9111 §3: only final responses. A 206 is not a complete response (§3.3) and a 304 refreshes a
        // stored response rather than replacing it (§4.3.4).
        guard isFinal(status: status) else { return .skip(because: .status) }
        if status == 206 { return .skip(because: .partial) }
        if status == 304 { return .skip(because: .status) }

        // RFC 9111 §5.2.2.3: with must-understand, store only a status code we understand, and then no-store
        // is to be ignored.
        let understood = understoodStatuses.contains(status)
        if given.mustUnderstand && !understood { return .skip(because: .status) }
        if given.noStore && !(given.mustUnderstand && understood) { return .skip(because: .noStore) }

        // RFC 9111 §5.2.2.7: a shared cache never stores a private response. Larder treats the qualified form
        // like the unqualified one, which the section allows.
        if given.isPrivate { return .skip(because: .privateResponse) }

        // RFC 9111 §3.5: with Authorization, only public, s-maxage or must-revalidate allow a shared cache to store.
        if request.headers.contains("Authorization") && !options.storeAuthorized
            && !(given.isPublic || given.hasSMaxAge || given.mustRevalidate)
        {
            return .skip(because: .authorization)
        }

        // Larder's product rule: a response setting a cookie is one user's, whatever it says (RFC 9111 §7.3 warns).
        if response.headers.contains("Set-Cookie") && !options.storeSetCookie { return .skip(because: .setCookie) }

        // RFC 9111 §4.1: Vary: * always fails to match.
        if response.headers.listContains("Vary", token: "*") { return .skip(because: .varyStar) }

        // RFC 9111 §3: public, Expires, max-age, s-maxage, or a heuristically cacheable status.
        let explicit = given.isPublic || given.hasMaxAge || given.hasSMaxAge || response.headers.contains("Expires")
        guard explicit || heuristicallyCacheableStatuses.contains(status) else {
            return .skip(because: .notCacheable)
        }

        if let limit = options.maxObjectSize, let length = contentLength(of: response), length > limit {
            return .skip(because: .tooLarge(bytes: length))
        }
        return .store
    }

    /// The `Content-Length` of a response when it is one valid decimal number (RFC 9110 §8.6).
    static func contentLength(of response: ResponseHead) -> Int? {
        // Looked for in place, not gathered into an array: every storable miss asks.
        var found: String?
        for field in response.headers where field.name.equalsIgnoringASCIICase("Content-Length") {
            if found != nil { return nil }
            found = field.value
        }
        guard let value = found, !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(value) ?? Int.max  // more digits than Int holds: larger than any limit
    }
}
