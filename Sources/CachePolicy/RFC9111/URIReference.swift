import HTTPWire

/// A URI reference, absolute or relative, as found in `Location` and `Content-Location` (RFC 3986 §4.1).
public struct URIReference: Sendable, Equatable {
    public var scheme: String?
    public var authority: String?
    public var path: String
    public var query: String?

    /// Splits a reference into its parts (RFC 3986 §3, Appendix B); the fragment is dropped.
    public init(parsing text: String) {
        var rest = Substring(text.trimmingHTTPWhitespace())
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        scheme = nil
        if let colon = rest.firstIndex(of: ":"), URIReference.isScheme(rest[..<colon]) {
            scheme = String(rest[..<colon]).asciiLowercased
            rest = rest[rest.index(after: colon)...]
        }
        authority = nil
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            authority = String(rest[..<end])
            rest = rest[end...]
        }
        if let question = rest.firstIndex(of: "?") {
            path = String(rest[..<question])
            query = String(rest[rest.index(after: question)...])
        } else {
            path = String(rest)
            query = nil
        }
    }

    /// `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` (RFC 3986 §3.1).
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, (first | 0x20) >= 0x61 && (first | 0x20) <= 0x7A else { return false }
        return text.utf8.allSatisfy { byte in
            let lower = byte | 0x20
            return (lower >= 0x61 && lower <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2B
                || byte == 0x2D || byte == 0x2E
        }
    }

    /// This reference resolved against `base` (RFC 3986 §5.2.2), or nil when the result is not an absolute
    /// http(s) URL `AbsoluteURL` accepts.
    public func resolved(against base: AbsoluteURL) -> AbsoluteURL? {
        let targetScheme: String
        let targetAuthority: String
        var targetPath: String
        var targetQuery: String?
        if let scheme {
            guard let authority else { return nil }
            targetScheme = scheme
            targetAuthority = authority
            targetPath = URIReference.removingDotSegments(path)
            targetQuery = query
        } else if let authority {
            targetScheme = base.scheme
            targetAuthority = authority
            targetPath = URIReference.removingDotSegments(path)
            targetQuery = query
        } else {
            targetScheme = base.scheme
            targetAuthority = URIReference.authority(of: base)
            if path.isEmpty {
                targetPath = base.path
                targetQuery = query ?? base.query
            } else {
                targetPath = URIReference.removingDotSegments(
                    path.hasPrefix("/") ? path : URIReference.merge(basePath: base.path, with: path)
                )
                targetQuery = query
            }
        }
        if targetPath.isEmpty { targetPath = "/" }
        let text = "\(targetScheme)://\(targetAuthority)\(targetPath)" + (targetQuery.map { "?\($0)" } ?? "")
        return AbsoluteURL(string: text)
    }

    /// The authority of `base` as its normalised text shows it, between "://" and the path.
    private static func authority(of base: AbsoluteURL) -> String {
        let text = base.description
        guard let start = text.firstRange(of: "://")?.upperBound else { return base.host }
        let rest = text[start...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        return String(rest[..<end])
    }

    /// Merge paths (RFC 3986 §5.2.3): the base path up to its last "/", then the reference path.
    static func merge(basePath: String, with path: String) -> String {
        guard let slash = basePath.lastIndex(of: "/") else { return "/" + path }
        return basePath[...slash] + path
    }

    /// Remove dot segments (RFC 3986 §5.2.4).
    static func removingDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                if !output.isEmpty { output.removeLast() }
            } else if input == "/.." {
                input = "/"
                if !output.isEmpty { output.removeLast() }
            } else if input == "." || input == ".." {
                input = ""
            } else {
                let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[start...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }
}
