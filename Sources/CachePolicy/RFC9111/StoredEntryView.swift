import HTTPWire

/// What the plan needs to know of a stored response (RFC 9111 §4).
public struct StoredEntryView: Sendable, Equatable {
    /// The stored response head, as updated by any 304 (RFC 9111 §3.2, §4.3.4).
    public var response: ResponseHead
    /// When it was requested and received, for its age (RFC 9111 §4.2.3).
    public var times: StoredTimes
    /// The stored request's header fields, at least those named by the response's `Vary` (RFC 9111 §4.1).
    public var requestHeaders: HTTPHeaders
    /// `response` already parsed, by a caller that keeps the facts of responses it serves often; nil to parse here.
    /// They must have been read from this very `response` (see `StoredResponseFacts`).
    public var facts: StoredResponseFacts?

    public init(
        response: ResponseHead, times: StoredTimes, requestHeaders: HTTPHeaders, facts: StoredResponseFacts? = nil
    ) {
        self.response = response
        self.times = times
        self.requestHeaders = requestHeaders
        self.facts = facts
    }
}
