import HTTPWire

extension HTTPHeaders {
    /// The fields worth keeping for a replay: end-to-end ones (RFC 9110 §7.6.1), without those that describe the
    /// original message's framing or exchange: `Host` and `Content-Length` come from the URL and the stored body,
    /// and `Expect: 100-continue` was answered when the request arrived.
    package var replayable: HTTPHeaders {
        var fields = removingHopByHop()
        for name in ["Host", "Content-Length", "Expect"] {
            fields.remove(name)
        }
        return fields
    }
}
