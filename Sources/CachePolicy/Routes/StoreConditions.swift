import HTTPWire

/// A route's `storeIf`: conditions a fetched response must meet, besides RFC 9111's, to be stored. A response
/// that fails them still reaches the client; `Cache-Status` says `detail=store-if`.
public struct StoreConditions: Sendable, Equatable {
    /// The statuses that may be stored. Nil: for `standard`, whatever RFC 9111 stores; for the other policies, 200.
    public var statuses: [Int]?
    /// Media types (`application/json`) or type prefixes (`text/` or `text/*`) the response's `Content-Type`
    /// must have; empty for any, even none.
    public var contentTypes: [String] = []
    /// Checks on the body, which must then be JSON, by JSON Pointer (RFC 6901), sorted by pointer.
    public var json: [JSONCheck] = []

    public init(statuses: [Int]? = nil, contentTypes: [String] = [], json: [JSONCheck] = []) {
        self.statuses = statuses
        self.contentTypes = contentTypes
        self.json = json
    }

    /// The statuses that may be stored when `storeIf.status` is not given, for policies other than `standard`.
    public static let defaultStatuses = [200]

    /// Whether the whole body must be seen, and passed to `acceptsBody`, before the entry is committed.
    public var checksBody: Bool { !json.isEmpty }

    /// Whether `status` may be stored under `policy`.
    public func allows(status: Int, policy: RoutePolicy) -> Bool {
        guard let statuses else { return policy == .standard || StoreConditions.defaultStatuses.contains(status) }
        return statuses.contains(status)
    }

    /// Whether the response's `Content-Type` is one of `contentTypes` (type and subtype compared
    /// case-insensitively, parameters ignored, RFC 9110 §8.3.1).
    public func allows(contentType field: String?) -> Bool {
        if contentTypes.isEmpty { return true }
        guard let field else { return false }
        let mediaType =
            field.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first
            .map { String($0).trimmingHTTPWhitespace().asciiLowercased } ?? ""
        return contentTypes.contains { allowed in
            let allowed = allowed.asciiLowercased
            if allowed.hasSuffix("/*") { return mediaType.hasPrefix(allowed.dropLast()) }
            if allowed.hasSuffix("/") { return mediaType.hasPrefix(allowed) }
            return mediaType == allowed
        }
    }

    /// Whether a complete body passes every `json` check; a body that is not JSON passes none. True without checks.
    public func acceptsBody(_ bytes: [UInt8]) -> Bool {
        if json.isEmpty { return true }
        guard let document = try? JSONValue.parse(bytes) else { return false }
        return json.allSatisfy { $0.holds(in: document) }
    }
}
