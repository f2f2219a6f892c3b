import HTTPWire

extension RFC9111 {
    /// The header fields of `response` that may be stored (RFC 9111 §3.1): without hop-by-hop fields
    /// (`Connection` and the fields it names, RFC 9110 §7.6.1) and without any `Proxy-*` field, which describes
    /// the hop to Larder rather than the response (`Proxy-Authenticate`, `Proxy-Authentication-Info`,
    /// `Proxy-Status`...).
    ///
    /// `Age` is kept: it is the `age_value` of the age calculation (RFC 9111 §4.2.3). On serve it is replaced by
    /// `ageHeaderValue(currentAge)` (RFC 9111 §5.1).
    public static func storableHeaders(_ response: ResponseHead) -> HTTPHeaders {
        storableHeaders(response.headers)
    }

    /// As `storableHeaders(_:)` for a response's fields. Fields already without their hop-by-hop ones come back
    /// as they are, sharing their storage, unless a `Proxy-*` field must go.
    public static func storableHeaders(_ headers: HTTPHeaders) -> HTTPHeaders {
        headers.removingHopByHop(andFieldsWhere: { $0.hasPrefixIgnoringASCIICase("proxy-") })
    }
}
