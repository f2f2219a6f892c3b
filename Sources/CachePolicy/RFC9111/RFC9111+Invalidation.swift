import HTTPWire

extension RFC9111 {
    /// The safe methods, which never invalidate (RFC 9110 §9.2.1).
    public static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]

    /// The URLs whose stored responses a response to `method` invalidates (RFC 9111 §4.4): for a non-error
    /// (2xx or 3xx) response to an unsafe method, including methods of unknown safety, the target URI, then the
    /// `Location` and `Content-Location` URLs, resolved against the request URL, when they have the same origin
    /// (scheme, host, port; RFC 9110 §4.3.1) as the target. Each URL appears once. Empty otherwise.
    public static func invalidationTargets(method: String, requestURL: AbsoluteURL, response: ResponseHead)
        -> [AbsoluteURL]
    {
        guard !safeMethods.contains(method), (200..<400).contains(response.status) else { return [] }
        var targets = [requestURL]
        for name in ["Location", "Content-Location"] {
            guard let value = response.headers[name],
                let url = URIReference(parsing: value).resolved(against: requestURL),
                isSameOrigin(url, requestURL),
                !targets.contains(where: { $0.description == url.description })
            else { continue }
            targets.append(url)
        }
        return targets
    }

    /// Same scheme, host and port (RFC 9110 §4.3.1; RFC 9111 §4.4).
    static func isSameOrigin(_ lhs: AbsoluteURL, _ rhs: AbsoluteURL) -> Bool {
        lhs.scheme.equalsIgnoringASCIICase(rhs.scheme) && lhs.host.equalsIgnoringASCIICase(rhs.host)
            && lhs.port == rhs.port
    }
}
