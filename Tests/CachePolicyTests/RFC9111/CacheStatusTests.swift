import CachePolicy
import Testing

@Suite("X-Cache and RFC 9211 Cache-Status")
struct CacheStatusTests {
    static let xCache: [(CacheStatus, String)] = [
        (.hit, "HIT"), (.miss, "MISS"), (.expired, "EXPIRED"), (.revalidated, "REVALIDATED"), (.stale, "STALE"),
        (.bypass, "BYPASS"), (.queued, "QUEUED"),
    ]

    @Test("each X-Cache status is its header text", arguments: xCache)
    func xCacheText(status: CacheStatus, text: String) {
        #expect(status.rawValue == text)
        #expect(CacheStatus(rawValue: text) == status)
    }

    static let fwd: [(ForwardReason, String)] = [
        (.bypass, "bypass"), (.method, "method"), (.uriMiss, "uri-miss"), (.varyMiss, "vary-miss"), (.miss, "miss"),
        (.request, "request"), (.stale, "stale"), (.partial, "partial"),
    ]

    @Test("each forward reason is its fwd token (RFC 9211 §2.2)", arguments: fwd)
    func fwdTokens(reason: ForwardReason, token: String) {
        #expect(reason.rawValue == token)
    }

    static let members: [(CacheStatusField, String)] = [
        (CacheStatusField(hit: true, ttl: 42), "larder; hit; ttl=42"),
        (
            CacheStatusField(fwd: .uriMiss, fwdStatus: 200, stored: true, ttl: 60),
            "larder; fwd=uri-miss; fwd-status=200; stored; ttl=60"
        ),
        (CacheStatusField(fwd: .varyMiss, fwdStatus: 200), "larder; fwd=vary-miss; fwd-status=200"),
        (CacheStatusField(fwd: .stale, fwdStatus: 304, ttl: 30), "larder; fwd=stale; fwd-status=304; ttl=30"),
        (
            CacheStatusField(fwd: .request, fwdStatus: 200, stored: true, ttl: 60),
            "larder; fwd=request; fwd-status=200; stored; ttl=60"
        ),
        (CacheStatusField(fwd: .bypass, detail: SkipReason.noStore.detail), "larder; fwd=bypass; detail=no-store"),
        (
            CacheStatusField(fwd: .uriMiss, fwdStatus: 200, detail: SkipReason.tooLarge(bytes: 9).detail),
            "larder; fwd=uri-miss; fwd-status=200; detail=too-large"
        ),
        (CacheStatusField(hit: true, fwd: .stale, fwdStatus: 503), "larder; hit; fwd=stale; fwd-status=503"),
        (CacheStatusField(hit: true, ttl: -5), "larder; hit; ttl=-5"),
        (
            CacheStatusField(fwd: .uriMiss, fwdStatus: 200, stored: true, collapsed: true),
            "larder; fwd=uri-miss; fwd-status=200; stored; collapsed"
        ),
        (CacheStatusField(hit: true, key: "http://a/b"), "larder; hit; key=\"http://a/b\""),
        (CacheStatusField(hit: true, ttl: Int64.max), "larder; hit; ttl=999999999999999"),
        (CacheStatusField(hit: true, ttl: Int64.min), "larder; hit; ttl=-999999999999999"),
        (CacheStatusField(cache: "Larder Edge", hit: true), "\"Larder Edge\"; hit"),
        (CacheStatusField(cache: "larder/1", hit: true), "larder/1; hit"),
    ]

    @Test("a Cache-Status member lists the cache, then its parameters in RFC 9211 §2 order", arguments: members)
    func memberText(field: CacheStatusField, text: String) {
        #expect(field.description == text)
    }

    static let details: [(String, String)] = [
        ("no-store", "detail=no-store"),
        ("a*b:c/d", "detail=a*b:c/d"),
        ("*star", "detail=*star"),
        ("404", "detail=\"404\""),
        ("origin said no", "detail=\"origin said no\""),
        ("say \"hi\"", "detail=\"say \\\"hi\\\"\""),
        ("back\\slash", "detail=\"back\\\\slash\""),
        ("café", "detail=\"caf?\""),
        ("", "detail=\"\""),
    ]

    @Test(
        "detail is a token when it can be, else a quoted string with escapes (RFC 9211 §2.8, RFC 8941 §3.3.3)",
        arguments: details)
    func detailForm(detail: String, text: String) {
        #expect(CacheStatusField(fwd: .bypass, detail: detail).description == "larder; fwd=bypass; \(text)")
    }
}
