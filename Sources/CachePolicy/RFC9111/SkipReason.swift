/// Why a response was not stored (RFC 9111 §3); `detail` is its token for `Cache-Status` (RFC 9211 §2.8).
public enum SkipReason: Equatable, Sendable {
    /// The request method is not one Larder stores: only GET (RFC 9111 §3; a HEAD is answered from a stored GET).
    case method
    /// The request said `no-store` (RFC 9111 §5.2.1.5).
    case noStoreRequest
    /// The response said `no-store` (RFC 9111 §5.2.2.5).
    case noStore
    /// The response said `private`, which a shared cache never stores (RFC 9111 §5.2.2.7).
    case privateResponse
    /// The request carried `Authorization` and the response did not allow shared caching (RFC 9111 §3.5).
    case authorization
    /// The response sets a cookie; Larder stores it only when the route opts in (stricter than RFC 9111 §7.3).
    case setCookie
    /// The status code is not final, or is not understood while `must-understand` is present (RFC 9111 §3,
    /// §5.2.2.3), or is a 304, which updates a stored response rather than being one (RFC 9111 §4.3.4).
    case status
    /// A 206 or otherwise incomplete response is not stored as complete (RFC 9111 §3.3).
    case partial
    /// No explicit freshness, no `public`, and a status that is not heuristically cacheable (RFC 9111 §3, §4.2.2).
    case notCacheable
    /// `Vary: *` never matches a later request, so storing is pointless (RFC 9111 §4.1).
    case varyStar
    /// The body is larger than the configured object limit.
    case tooLarge(bytes: Int)
    /// A route's `storeIf` condition rejected the response (route checks, outside RFC 9111).
    case storeIf

    /// The token for `Cache-Status: ...; detail=` (RFC 9211 §2.8).
    public var detail: String {
        switch self {
        case .method: "method"
        case .noStoreRequest: "request-no-store"
        case .noStore: "no-store"
        case .privateResponse: "private"
        case .authorization: "authorization"
        case .setCookie: "set-cookie"
        case .status: "status"
        case .partial: "partial"
        case .notCacheable: "not-cacheable"
        case .varyStar: "vary-star"
        case .tooLarge: "too-large"
        case .storeIf: "store-if"
        }
    }
}
