extension HTTPHeaders {
    /// Fields that describe one connection rather than the message, so a proxy never forwards them
    /// (RFC 9110 §7.6.1). `Proxy-Connection` is the pre-standard spelling of `Connection`;
    /// `Proxy-Authorization` is consumed by the proxy it was meant for.
    static let hopByHopNames = [
        "Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authorization", "Proxy-Authenticate", "TE",
        "Trailer", "Transfer-Encoding", "Upgrade",
    ]

    /// These fields without the hop-by-hop ones: `Connection` and every field it names, `Keep-Alive`,
    /// `Proxy-Connection`, `Proxy-Authorization`, `Proxy-Authenticate`, `TE`, `Trailer`, `Transfer-Encoding`
    /// and `Upgrade` (RFC 9110 §7.6.1).
    public func removingHopByHop() -> HTTPHeaders {
        let named = listElements("Connection")
        var copy = self
        // Case-insensitive comparison of short names, without lowercasing (and allocating) every field name.
        copy.removeAll { field in
            Self.hopByHopNames.contains { field.name.equalsIgnoringASCIICase($0) }
                || named.contains { field.name.equalsIgnoringASCIICase($0) }
        }
        return copy
    }
}
