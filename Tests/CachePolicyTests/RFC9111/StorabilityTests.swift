import CachePolicy
import HTTPWire
import Testing

/// One row of a storability table.
struct StoreCase: Sendable, CustomTestStringConvertible {
    var name: String
    var method = "GET"
    var requestLines: [String] = []
    var status = 200
    var responseLines: [String] = []
    var options = StoreOptions()
    var expected: StoreDecision

    var testDescription: String { name }

    func decide() -> StoreDecision {
        RFC9111.storability(
            request: request(method, requestLines), response: response(status, responseLines), options: options)
    }
}

@Suite("RFC 9111 §3 storing responses")
struct StorabilityTests {
    static let methods: [StoreCase] = [
        StoreCase(name: "GET", responseLines: ["Cache-Control: max-age=60"], expected: .store),
        StoreCase(
            name: "HEAD is answered from a stored GET, never stored", method: "HEAD",
            responseLines: ["Cache-Control: max-age=60"], expected: .skip(because: .method)),
        StoreCase(
            name: "POST", method: "POST", responseLines: ["Cache-Control: max-age=60"],
            expected: .skip(because: .method)),
        StoreCase(
            name: "PUT", method: "PUT", responseLines: ["Cache-Control: max-age=60"], expected: .skip(because: .method)),
        StoreCase(
            name: "OPTIONS", method: "OPTIONS", responseLines: ["Cache-Control: max-age=60"],
            expected: .skip(because: .method)),
        StoreCase(
            name: "methods are case-sensitive: get", method: "get", responseLines: ["Cache-Control: max-age=60"],
            expected: .skip(because: .method)),
    ]

    @Test("only responses to GET are stored (§3)", arguments: methods)
    func storesOnlyGet(_ row: StoreCase) {
        #expect(row.decide() == row.expected)
    }

    static let heuristic = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    @Test("a heuristically cacheable status is stored without explicit freshness (§3, §4.2.2)", arguments: heuristic)
    func storesHeuristicStatus(status: Int) {
        #expect(StoreCase(name: "", status: status, expected: .store).decide() == .store)
    }

    static let notHeuristic = [201, 202, 302, 303, 307, 400, 401, 403, 409, 500, 502, 503, 504]

    @Test("any other final status needs explicit freshness or public (§3)", arguments: notHeuristic)
    func skipsOtherStatusWithoutFreshness(status: Int) {
        #expect(StoreCase(name: "", status: status, expected: .store).decide() == .skip(because: .notCacheable))
    }

    static let explicit: [StoreCase] = [
        StoreCase(
            name: "302 with max-age", status: 302, responseLines: ["Cache-Control: max-age=60"], expected: .store),
        StoreCase(
            name: "302 with s-maxage", status: 302, responseLines: ["Cache-Control: s-maxage=60"], expected: .store),
        StoreCase(name: "302 with Expires", status: 302, responseLines: ["Expires: \(date(60))"], expected: .store),
        StoreCase(
            name: "302 with an invalid Expires (present, already expired)", status: 302,
            responseLines: ["Expires: 0"], expected: .store),
        StoreCase(name: "302 with public", status: 302, responseLines: ["Cache-Control: public"], expected: .store),
        StoreCase(name: "500 with max-age", status: 500, responseLines: ["Cache-Control: max-age=5"], expected: .store),
        StoreCase(
            name: "201 with an invalid max-age (present, stale)", status: 201,
            responseLines: ["Cache-Control: max-age=x"], expected: .store),
        StoreCase(
            name: "302 with only must-revalidate", status: 302, responseLines: ["Cache-Control: must-revalidate"],
            expected: .skip(because: .notCacheable)),
        StoreCase(
            name: "302 with only stale-while-revalidate", status: 302,
            responseLines: ["Cache-Control: stale-while-revalidate=60"], expected: .skip(because: .notCacheable)),
    ]

    @Test("explicit freshness or public makes any final status storable (§3)", arguments: explicit)
    func explicitFreshness(_ row: StoreCase) {
        #expect(row.decide() == row.expected)
    }

    static let statuses: [StoreCase] = [
        StoreCase(
            name: "100 is not final", status: 100, responseLines: ["Cache-Control: max-age=60"],
            expected: .skip(because: .status)),
        StoreCase(name: "101 is not final", status: 101, expected: .skip(because: .status)),
        StoreCase(
            name: "206 is partial", status: 206, responseLines: ["Cache-Control: max-age=60"],
            expected: .skip(because: .partial)),
        StoreCase(
            name: "304 updates, is not stored", status: 304, responseLines: ["Cache-Control: max-age=60"],
            expected: .skip(because: .status)),
        StoreCase(
            name: "an unregistered final status with max-age", status: 299,
            responseLines: ["Cache-Control: max-age=60"],
            expected: .store),
    ]

    @Test("only final, complete responses are stored (§3, §3.3)", arguments: statuses)
    func finalAndComplete(_ row: StoreCase) {
        #expect(row.decide() == row.expected)
    }

    static let noStore: [StoreCase] = [
        StoreCase(name: "no-store", responseLines: ["Cache-Control: no-store"], expected: .skip(because: .noStore)),
        StoreCase(name: "No-Store", responseLines: ["Cache-Control: No-Store"], expected: .skip(because: .noStore)),
        StoreCase(
            name: "max-age and no-store: most restrictive", responseLines: ["Cache-Control: max-age=60, no-store"],
            expected: .skip(because: .noStore)),
        StoreCase(
            name: "no-store on a second field line",
            responseLines: ["Cache-Control: public", "Cache-Control: no-store"],
            expected: .skip(because: .noStore)),
        StoreCase(
            name: "request no-store", requestLines: ["Cache-Control: no-store"],
            responseLines: ["Cache-Control: max-age=60"], expected: .skip(because: .noStoreRequest)),
        StoreCase(
            name: "Pragma: no-cache in a response means nothing",
            responseLines: ["Pragma: no-cache", "Cache-Control: max-age=60"],
            expected: .store),
        StoreCase(
            name: "no-cache responses are stored (and always validated)", responseLines: ["Cache-Control: no-cache"],
            expected: .store),
    ]

    @Test("no-store in the request or the response prevents storing (§5.2.1.5, §5.2.2.5)", arguments: noStore)
    func noStoreDirectives(_ row: StoreCase) {
        #expect(row.decide() == row.expected)
    }

    static let mustUnderstand: [StoreCase] = [
        StoreCase(
            name: "understood status: no-store is ignored", responseLines: ["Cache-Control: must-understand, no-store"],
            expected: .store),
        StoreCase(
            name: "404 understood: no-store is ignored", status: 404,
            responseLines: ["Cache-Control: must-understand, no-store"], expected: .store),
        StoreCase(
            name: "unknown status with no-store", status: 299,
            responseLines: ["Cache-Control: must-understand, no-store"],
            expected: .skip(because: .status)),
        StoreCase(
            name: "unknown status with max-age", status: 299,
            responseLines: ["Cache-Control: must-understand, max-age=60"],
            expected: .skip(because: .status)),
        StoreCase(
            name: "206 stays partial", status: 206, responseLines: ["Cache-Control: must-understand, no-store"],
            expected: .skip(because: .partial)),
    ]

    @Test(
        "must-understand stores only understood statuses and then overrides no-store (§5.2.2.3)",
        arguments: mustUnderstand)
    func mustUnderstandDirective(_ row: StoreCase) {
        #expect(row.decide() == row.expected)
    }

    static let privateResponses: [StoreCase] = [
        StoreCase(
            name: "private", responseLines: ["Cache-Control: private, max-age=60"],
            expected: .skip(because: .privateResponse)),
        StoreCase(
            name: "qualified private is treated as unqualified",
            responseLines: ["Cache-Control: private=\"Set-Cookie\", max-age=60"],
            expected: .skip(because: .privateResponse)),
        StoreCase(
            name: "public and private: most restrictive", responseLines: ["Cache-Control: public, private"],
            expected: .skip(because: .privateResponse)),
    ]

    @Test("a shared cache never stores a private response (§5.2.2.7)", arguments: privateResponses)
    func privateDirective(_ row: StoreCase) {
        #expect(row.decide() == row.expected)
    }

    static let authorization: [StoreCase] = [
        StoreCase(
            name: "max-age alone", requestLines: ["Authorization: Bearer t"],
            responseLines: ["Cache-Control: max-age=60"],
            expected: .skip(because: .authorization)),
        StoreCase(
            name: "heuristic alone", requestLines: ["Authorization: Bearer t"], expected: .skip(because: .authorization)
        ),
        StoreCase(
            name: "lower-case field name", requestLines: ["authorization: Bearer t"],
            responseLines: ["Cache-Control: max-age=60"], expected: .skip(because: .authorization)),
        StoreCase(
            name: "proxy-revalidate does not allow it", requestLines: ["Authorization: Bearer t"],
            responseLines: ["Cache-Control: max-age=60, proxy-revalidate"], expected: .skip(because: .authorization)),
        StoreCase(
            name: "public", requestLines: ["Authorization: Bearer t"], responseLines: ["Cache-Control: public"],
            expected: .store),
        StoreCase(
            name: "s-maxage", requestLines: ["Authorization: Bearer t"], responseLines: ["Cache-Control: s-maxage=60"],
            expected: .store),
        StoreCase(
            name: "must-revalidate", requestLines: ["Authorization: Bearer t"],
            responseLines: ["Cache-Control: max-age=60, must-revalidate"], expected: .store),
        StoreCase(
            name: "a route opted in", requestLines: ["Authorization: Bearer t"],
            responseLines: ["Cache-Control: max-age=60"],
            options: StoreOptions(storeAuthorized: true), expected: .store),
    ]

    @Test("with Authorization, only public, s-maxage or must-revalidate allow storing (§3.5)", arguments: authorization)
    func authorizationRule(_ row: StoreCase) {
        #expect(row.decide() == row.expected)
    }

    static let larderRules: [StoreCase] = [
        StoreCase(
            name: "Set-Cookie", responseLines: ["Cache-Control: max-age=60", "Set-Cookie: a=1"],
            expected: .skip(because: .setCookie)),
        StoreCase(
            name: "Set-Cookie even when public",
            responseLines: ["Cache-Control: public, max-age=60", "set-cookie: a=1"],
            expected: .skip(because: .setCookie)),
        StoreCase(
            name: "Set-Cookie when the route opted in",
            responseLines: ["Cache-Control: max-age=60", "Set-Cookie: a=1"],
            options: StoreOptions(storeSetCookie: true), expected: .store),
        StoreCase(
            name: "Vary: *", responseLines: ["Cache-Control: max-age=60", "Vary: *"],
            expected: .skip(because: .varyStar)),
        StoreCase(
            name: "Vary with * among names", responseLines: ["Cache-Control: max-age=60", "Vary: Accept-Encoding, *"],
            expected: .skip(because: .varyStar)),
        StoreCase(
            name: "Vary with names only", responseLines: ["Cache-Control: max-age=60", "Vary: Accept-Encoding"],
            expected: .store),
        StoreCase(
            name: "Content-Length over the limit",
            responseLines: ["Cache-Control: max-age=60", "Content-Length: 2000"],
            options: StoreOptions(maxObjectSize: 1000), expected: .skip(because: .tooLarge(bytes: 2000))),
        StoreCase(
            name: "Content-Length at the limit", responseLines: ["Cache-Control: max-age=60", "Content-Length: 1000"],
            options: StoreOptions(maxObjectSize: 1000), expected: .store),
        StoreCase(
            name: "no Content-Length: bounded while streaming", responseLines: ["Cache-Control: max-age=60"],
            options: StoreOptions(maxObjectSize: 1000), expected: .store),
        StoreCase(
            name: "no limit", responseLines: ["Cache-Control: max-age=60", "Content-Length: 2000"], expected: .store),
        StoreCase(
            name: "the RFC reason comes before the size",
            responseLines: ["Cache-Control: no-store", "Content-Length: 2000"],
            options: StoreOptions(maxObjectSize: 1000), expected: .skip(because: .noStore)),
    ]

    @Test("Set-Cookie, Vary: * and oversized bodies are not stored (§4.1, Larder rules)", arguments: larderRules)
    func larderProductRules(_ row: StoreCase) {
        #expect(row.decide() == row.expected)
    }

    static let details: [(SkipReason, String)] = [
        (.method, "method"),
        (.noStoreRequest, "request-no-store"),
        (.noStore, "no-store"),
        (.privateResponse, "private"),
        (.authorization, "authorization"),
        (.setCookie, "set-cookie"),
        (.status, "status"),
        (.partial, "partial"),
        (.notCacheable, "not-cacheable"),
        (.varyStar, "vary-star"),
        (.tooLarge(bytes: 9), "too-large"),
        (.storeIf, "store-if"),
    ]

    @Test("every skip reason names its Cache-Status detail token (RFC 9211 §2.8)", arguments: details)
    func detailTokens(reason: SkipReason, token: String) {
        #expect(reason.detail == token)
    }
}
