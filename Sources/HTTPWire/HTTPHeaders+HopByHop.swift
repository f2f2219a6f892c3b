extension HTTPHeaders {
    /// Whether `name` is a field that describes one connection rather than the message, so a proxy never forwards
    /// it (RFC 9110 §7.6.1): `Connection`, `Keep-Alive`, `Proxy-Connection` (the pre-standard spelling of
    /// `Connection`), `Proxy-Authorization` (consumed by the proxy it was meant for), `Proxy-Authenticate`, `TE`,
    /// `Trailer`, `Transfer-Encoding` or `Upgrade`. Their lengths differ but for two pairs, so one length test rules
    /// out almost every other field before any byte is compared.
    static func isHopByHopName(_ name: String) -> Bool {
        switch name.utf8.count {
        case 2: name.equalsIgnoringASCIICase("TE")
        case 7: name.equalsIgnoringASCIICase("Trailer") || name.equalsIgnoringASCIICase("Upgrade")
        case 10: name.equalsIgnoringASCIICase("Connection") || name.equalsIgnoringASCIICase("Keep-Alive")
        case 16: name.equalsIgnoringASCIICase("Proxy-Connection")
        case 17: name.equalsIgnoringASCIICase("Transfer-Encoding")
        case 18: name.equalsIgnoringASCIICase("Proxy-Authenticate")
        case 19: name.equalsIgnoringASCIICase("Proxy-Authorization")
        default: false
        }
    }

    /// These fields without the hop-by-hop ones: `Connection` and every field it names, `Keep-Alive`,
    /// `Proxy-Connection`, `Proxy-Authorization`, `Proxy-Authenticate`, `TE`, `Trailer`, `Transfer-Encoding`
    /// and `Upgrade` (RFC 9110 §7.6.1).
    public func removingHopByHop() -> HTTPHeaders {
        removingHopByHop(andFieldsWhere: { _ in false })
    }

    /// These fields without the hop-by-hop ones and without those whose name `alsoRemove` picks, in one pass.
    /// Every response a proxy relays goes through here (twice on a miss: to the client and to the store), so the
    /// fields are read in place and copied only when one is dropped, once, into an array of the right size.
    public func removingHopByHop(andFieldsWhere alsoRemove: (String) -> Bool) -> HTTPHeaders {
        // `Connection` usually names nothing beyond the hop-by-hop fields (`keep-alive`); only when it does is each
        // field looked for in its list. (A token of up to 15 bytes, as `keep-alive` and `close` are, is kept inline in
        // its String: no allocation.)
        var namesOthers = false
        forEachListElement("Connection") { token in
            if !namesOthers && !Self.isHopByHopName(String(decoding: token, as: UTF8.self)) { namesOthers = true }
        }
        func removed(_ field: HTTPField) -> Bool {
            Self.isHopByHopName(field.name) || alsoRemove(field.name)
                || (namesOthers && listContains("Connection", token: field.name))
        }
        guard let first = fields.firstIndex(where: removed) else { return self }
        var kept: [HTTPField] = []
        // As many as there were: room for the field or two a caller adds (`Via`) without growing.
        kept.reserveCapacity(fields.count)
        kept.append(contentsOf: fields[..<first])
        for field in fields[(first + 1)...] where !removed(field) { kept.append(field) }
        return HTTPHeaders(kept)
    }
}
