import HTTPWire

extension CacheControl {
    /// Parses every `Cache-Control` field line of `headers` (RFC 9111 §5.2): comma-separated directives,
    /// names compared case-insensitively, arguments in token or quoted-string form, which recipients accept
    /// either way (RFC 9111 §5.2). Unknown directives are ignored (RFC 9111 §5.2.3).
    public init(parsing headers: HTTPHeaders) {
        self = CacheControl.parse(headers).value
    }

    /// The directives of a request: `Cache-Control`, or, when the request has no `Cache-Control` directive
    /// this parser understands, `Pragma: no-cache` as `no-cache` (RFC 9111 §5.4).
    public init(requestHeaders headers: HTTPHeaders) {
        let (value, understood) = CacheControl.parse(headers)
        self = value
        if understood == 0 && headers.listContains("Pragma", token: "no-cache") {
            noCache = true
        }
    }

    /// The parsed value and how many directives were understood, for the `Pragma` rule (RFC 9111 §5.4).
    private static func parse(_ headers: HTTPHeaders) -> (value: CacheControl, understood: Int) {
        var result = CacheControl()
        var understood = 0
        for element in headers.listElements("Cache-Control") {
            let (name, argument) = split(element)
            if result.apply(name: name, argument: argument) { understood += 1 }
        }
        return (result, understood)
    }

    /// Splits `name[=argument]` at the first `=`, trims both sides and unquotes a quoted-string argument
    /// (RFC 9110 §5.6.4).
    private static func split(_ element: String) -> (name: String, argument: String?) {
        guard let equals = element.firstIndex(of: "=") else {
            return (element.trimmingHTTPWhitespace().asciiLowercased, nil)
        }
        let name = String(element[..<equals]).trimmingHTTPWhitespace().asciiLowercased
        let raw = String(element[element.index(after: equals)...]).trimmingHTTPWhitespace()
        return (name, unquote(raw))
    }

    /// The content of a quoted-string with its quoted-pairs resolved, or a token unchanged (RFC 9110 §5.6.4).
    private static func unquote(_ text: String) -> String {
        guard text.first == "\"" else { return text }
        var result = ""
        var escaped = false
        for character in text.dropFirst() {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                break
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// The field names of a qualified `no-cache` or `private` (RFC 9111 §5.2.2.4, §5.2.2.7).
    private static func fieldNames(_ argument: String?) -> [String] {
        guard let argument else { return [] }
        return argument.split(separator: ",").map { String($0).trimmingHTTPWhitespace() }.filter { !$0.isEmpty }
    }

    /// Records one directive; returns whether it is one this parser understands.
    private mutating func apply(name: String, argument: String?) -> Bool {
        switch name {
        case "max-age": setSeconds(\.maxAge, name, argument)
        case "s-maxage": setSeconds(\.sMaxAge, name, argument)
        case "min-fresh": setSeconds(\.minFresh, name, argument)
        case "stale-while-revalidate": setSeconds(\.staleWhileRevalidate, name, argument)
        case "stale-if-error": setSeconds(\.staleIfError, name, argument)
        case "max-stale":
            // RFC 9111 §5.2.1.2: without a value the client accepts any staleness.
            if let argument {
                if let seconds = DeltaSeconds.parse(argument) {
                    if maxStale == nil { maxStale = .seconds(seconds) }
                } else {
                    malformed.append(name)
                }
            } else if maxStale == nil {
                maxStale = .any
            }
        case "no-store": noStore = true
        case "no-cache":
            noCache = true
            noCacheFields.append(contentsOf: CacheControl.fieldNames(argument))
        case "private":
            isPrivate = true
            privateFields.append(contentsOf: CacheControl.fieldNames(argument))
        case "public": isPublic = true
        case "must-revalidate": mustRevalidate = true
        case "proxy-revalidate": proxyRevalidate = true
        case "must-understand": mustUnderstand = true
        case "no-transform": noTransform = true
        case "immutable": immutable = true
        case "only-if-cached": onlyIfCached = true
        default: return false
        }
        return true
    }

    /// First valid value wins; an invalid one is ignored and remembered in `malformed` (RFC 9111 §1.2.2, §4.2.1).
    private mutating func setSeconds(_ path: WritableKeyPath<CacheControl, Int64?>, _ name: String, _ argument: String?)
    {
        guard let argument, let seconds = DeltaSeconds.parse(argument) else {
            malformed.append(name)
            return
        }
        if self[keyPath: path] == nil { self[keyPath: path] = seconds }
    }
}
