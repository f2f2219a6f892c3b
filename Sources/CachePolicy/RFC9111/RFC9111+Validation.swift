import HTTPWire

extension RFC9111 {
    /// The conditional fields for validating `stored` with the origin (RFC 9111 §4.3.1): `If-None-Match` with its
    /// `ETag`; `If-Modified-Since` with its `Last-Modified`, or, when it has neither `ETag` nor `Last-Modified`,
    /// with its `Date` (RFC 9110 §13.1.3 allows the Date). Empty when it has no validator at all.
    public static func conditionalHeaders(for stored: ResponseHead) -> HTTPHeaders {
        var headers = HTTPHeaders()
        let etag = stored.headers["ETag"].map { $0.trimmingHTTPWhitespace() }.flatMap { $0.isEmpty ? nil : $0 }
        if let etag { headers.add("If-None-Match", etag) }
        if let lastModified = stored.headers["Last-Modified"], HTTPDate.parse(lastModified) != nil {
            headers.add("If-Modified-Since", lastModified)
        } else if etag == nil, let date = stored.headers["Date"], HTTPDate.parse(date) != nil {
            headers.add("If-Modified-Since", date)
        }
        return headers
    }

    /// Whether the client's own conditional GET/HEAD is satisfied by the stored response, so the cache answers
    /// 304 (RFC 9111 §4.3.2): `If-None-Match` by weak comparison with the stored `ETag` (`*` matches any stored
    /// response); otherwise `If-Modified-Since`, against the stored `Last-Modified`, else its `Date`, else the
    /// time it was received. Conditions are evaluated only over a 2xx stored response (RFC 9110 §13.2.1).
    public static func clientConditionMatches(_ request: RequestHead, stored entry: StoredEntryView) -> Bool {
        guard (200..<300).contains(entry.response.status) else { return false }
        // RFC 9110 §13.2.2: If-None-Match, when present, decides, and If-Modified-Since is ignored.
        if request.headers.contains("If-None-Match") {
            let storedTag = entry.response.headers["ETag"].flatMap(EntityTag.init(parsing:))
            return request.headers.listElements("If-None-Match").contains { member in
                if member == "*" { return true }
                guard let storedTag, let tag = EntityTag(parsing: member) else { return false }
                return tag.weaklyMatches(storedTag)
            }
        }
        // RFC 9110 §13.1.3: one valid HTTP-date, else ignored.
        let sinceValues = request.headers.values("If-Modified-Since")
        guard sinceValues.count == 1, let since = HTTPDate.parse(sinceValues[0]) else { return false }
        let lastModified =
            entry.response.headers["Last-Modified"].flatMap(HTTPDate.parse)
            ?? dateValue(of: entry.response)
            ?? entry.times.responseTime
        return lastModified <= since
    }

    /// The stored head refreshed by a 304 (RFC 9111 §4.3.4, §3.2): every field the 304 carries replaces all
    /// stored lines of that name, in place of the first of them, so the stored order is kept; new names are
    /// appended in the 304's order. Never taken from the 304: `Content-Length` (§3.2), framing
    /// (`Transfer-Encoding`), hop-by-hop and `Proxy-*` fields (§3.1). Status, reason and version stay stored.
    ///
    /// `Age` and `Date` describe the exchange the store's `StoredTimes` describe, which become those of the 304
    /// exchange: the stored `Age` is dropped unless the 304 has one, and a 304 without `Date` gets `receivedAt`
    /// as its `Date` when given (RFC 9110 §6.6.1).
    public static func updatedResponse(
        stored: ResponseHead,
        with notModified: ResponseHead,
        receivedAt: Int64? = nil
    ) -> ResponseHead {
        var incoming = storableHeaders(notModified)
        incoming.removeAll {
            $0.name.equalsIgnoringASCIICase("Content-Length") || $0.name.equalsIgnoringASCIICase("Transfer-Encoding")
        }
        if !incoming.contains("Date"), let receivedAt {
            incoming.add("Date", HTTPDate.format(secondsSince1970: receivedAt))
        }
        var replacements: [String: [HTTPField]] = [:]
        var newNames: [String] = []
        for field in incoming {
            let name = field.name.asciiLowercased
            if replacements[name] == nil { newNames.append(name) }
            replacements[name, default: []].append(field)
        }

        var fields: [HTTPField] = []
        var replaced: Set<String> = []
        for field in stored.headers {
            let name = field.name.asciiLowercased
            if let replacement = replacements[name] {
                if replaced.insert(name).inserted { fields.append(contentsOf: replacement) }
            } else if name != "age" {
                fields.append(field)
            }
        }
        for name in newNames where !replaced.contains(name) {
            fields.append(contentsOf: replacements[name] ?? [])
        }

        var updated = stored
        updated.headers = HTTPHeaders(fields)
        return updated
    }
}
