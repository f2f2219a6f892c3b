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
    /// Runs on every cache look-up (twice: request and stored response), so it reads the field values' bytes in
    /// place and builds a String only for what it keeps (`no-cache`/`private` field names, malformed names).
    private static func parse(_ headers: HTTPHeaders) -> (value: CacheControl, understood: Int) {
        var result = CacheControl()
        var understood = 0
        headers.forEachListElement("Cache-Control") { element in
            if result.apply(element) { understood += 1 }
        }
        return (result, understood)
    }

    /// Records one list element, `name[=argument]`, split at its first `=` with both sides trimmed; a
    /// quoted-string argument is unquoted (RFC 9110 §5.6.4). Returns whether the directive is understood.
    private mutating func apply(_ element: UnsafeBufferPointer<UInt8>) -> Bool {
        let equals = element.firstIndex(of: 0x3D)
        let name = ASCII.trimmingWhitespace(UnsafeBufferPointer(rebasing: element[..<(equals ?? element.count)]))
        guard let directive = CacheDirective(name: name) else { return false }
        guard let equals else {
            apply(directive, argument: nil)
            return true
        }
        let raw = ASCII.trimmingWhitespace(UnsafeBufferPointer(rebasing: element[(equals + 1)...]))
        CacheControl.withUnquoted(raw) { apply(directive, argument: $0) }
        return true
    }

    /// Calls `body` with the content of a quoted-string, its quoted-pairs resolved and anything after the closing
    /// quote dropped, or with `raw` unchanged when it does not start with a quote (RFC 9110 §5.6.4). Only an
    /// argument with a backslash needs a copy.
    private static func withUnquoted(_ raw: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard raw.first == 0x22 else { return body(raw) }
        var end = 1
        while end < raw.count && raw[end] != 0x22 && raw[end] != 0x5C { end += 1 }
        guard end < raw.count, raw[end] == 0x5C else {
            return body(UnsafeBufferPointer(rebasing: raw[1..<end]))
        }
        var content = Array(raw[1..<end])
        var escaped = false
        for byte in raw[end...] {
            if escaped {
                content.append(byte)
                escaped = false
            } else if byte == 0x5C {
                escaped = true
            } else if byte == 0x22 {
                break
            } else {
                content.append(byte)
            }
        }
        content.withUnsafeBufferPointer(body)
    }

    /// The field names of a qualified `no-cache` or `private`: the argument split at every comma, trimmed, empty
    /// ones dropped (RFC 9111 §5.2.2.4, §5.2.2.7).
    private static func fieldNames(_ argument: UnsafeBufferPointer<UInt8>?) -> [String] {
        guard let argument else { return [] }
        return argument.split(separator: 0x2C, omittingEmptySubsequences: false).compactMap { part in
            let name = ASCII.trimmingWhitespace(UnsafeBufferPointer(rebasing: part))
            return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
        }
    }

    /// Records one understood directive.
    private mutating func apply(_ directive: CacheDirective, argument: UnsafeBufferPointer<UInt8>?) {
        switch directive {
        case .maxAge: Self.keepFirst(&maxAge, directive, argument, malformed: &malformed)
        case .sMaxAge: Self.keepFirst(&sMaxAge, directive, argument, malformed: &malformed)
        case .minFresh: Self.keepFirst(&minFresh, directive, argument, malformed: &malformed)
        case .staleWhileRevalidate: Self.keepFirst(&staleWhileRevalidate, directive, argument, malformed: &malformed)
        case .staleIfError: Self.keepFirst(&staleIfError, directive, argument, malformed: &malformed)
        case .maxStale:
            // RFC 9111 §5.2.1.2: without a value the client accepts any staleness.
            if let argument {
                if let seconds = DeltaSeconds.parse(argument) {
                    if maxStale == nil { maxStale = .seconds(seconds) }
                } else {
                    malformed.append(directive.rawValue)
                }
            } else if maxStale == nil {
                maxStale = .any
            }
        case .noStore: noStore = true
        case .noCache:
            noCache = true
            noCacheFields.append(contentsOf: CacheControl.fieldNames(argument))
        case .private:
            isPrivate = true
            privateFields.append(contentsOf: CacheControl.fieldNames(argument))
        case .public: isPublic = true
        case .mustRevalidate: mustRevalidate = true
        case .proxyRevalidate: proxyRevalidate = true
        case .mustUnderstand: mustUnderstand = true
        case .noTransform: noTransform = true
        case .immutable: immutable = true
        case .onlyIfCached: onlyIfCached = true
        }
    }

    /// Sets `value` to the argument's delta-seconds unless it has one: the first valid value wins, an invalid or
    /// missing one is ignored and remembered in `malformed` (RFC 9111 §1.2.2, §4.2.1). The field is passed in
    /// rather than named by a key path: writing through a key path is a runtime call, on every response stored.
    private static func keepFirst(
        _ value: inout Int64?, _ directive: CacheDirective, _ argument: UnsafeBufferPointer<UInt8>?,
        malformed: inout [String]
    ) {
        guard let argument, let seconds = DeltaSeconds.parse(argument) else {
            malformed.append(directive.rawValue)
            return
        }
        if value == nil { value = seconds }
    }
}
