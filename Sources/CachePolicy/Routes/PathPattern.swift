/// A route's `match.path`, compiled when the config loads. Paths compare case-sensitively, byte for byte, as
/// the request sent them (percent-encoding included), and never include the query.
///
/// - `/a`: that path only.
/// - `/v1/`: a prefix, for any pattern ending in "/": `/v1/` and everything below it.
/// - `*` matches any run of characters within one segment (`/v1/*/items`), `**` any run across segments
///   (`/**/-/*.tgz`), and a `*` at the very end also crosses segments, so `/v1/*` is the same as the prefix `/v1/`.
///   A glob ending in "/" is a prefix too: `/*/dists/` takes `/debian/dists/bookworm/InRelease`.
public struct PathPattern: Sendable, Equatable, CustomStringConvertible {
    enum Form: Sendable, Equatable {
        case exact(String)
        case prefix(String)
        case glob(Glob)
    }

    /// The pattern as written in the config.
    public let text: String
    let form: Form

    /// Nil when the text is not a path pattern; `problem(with:)` says why.
    public init?(_ text: String) {
        guard PathPattern.problem(with: text) == nil else { return nil }
        self.text = text
        if text.contains("*") {
            // `problem(with:)` kept the text under the bound, with room for the "**" a prefix gains.
            var elements = Glob(text, separator: 0x2F)!.elements
            if elements.last == .star {
                // A trailing `*` reaches below its segment: "/v1/*" is everything under /v1/.
                elements[elements.count - 1] = .globstar
            } else if text.hasSuffix("/") {
                // Ending in "/" makes a prefix, with wildcards or without: "/*/dists/" is everything under them.
                elements.append(.globstar)
            }
            // At most one element more than the text had: within the bound, as above.
            let glob = Glob(elements: elements, separator: 0x2F)!
            // "/v1/**" and "/v1/*" are prefixes, matched without the automaton.
            if glob.elements.last == .globstar,
                !glob.elements.dropLast().contains(where: { $0 == .star || $0 == .globstar })
            {
                form = .prefix(String(text.prefix { $0 != "*" }))
            } else {
                form = .glob(glob)
            }
        } else if text.hasSuffix("/") {
            form = .prefix(text)
        } else {
            form = .exact(text)
        }
    }

    public var description: String { text }

    /// Why `text` cannot be a path pattern, or nil when it can.
    static func problem(with text: String) -> String? {
        guard text.hasPrefix("/") else { return "must start with \"/\", e.g. \"/v1/\" or \"/v1/*\"" }
        if text.contains("?") { return "matches the path only; the query is not part of it" }
        if text.contains("#") { return "a request path has no fragment (\"#\")" }
        if text.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) {
            return "may not contain spaces, control characters or non-ASCII characters; percent-encode them"
        }
        // One element is kept for the "**" a prefix glob gains.
        if text.utf8.count >= Glob.maximumLength && text.contains("*") {
            return
                "a pattern with \"*\" may be at most \(Glob.maximumLength - 1) characters; use a prefix ending in \"/\""
        }
        return nil
    }

    /// Whether `path` (a request's path, without its query) matches.
    public func matches(_ path: String) -> Bool {
        switch form {
        case .exact(let expected): path == expected
        case .prefix(let prefix): path.utf8.starts(with: prefix.utf8)
        case .glob(let glob): glob.matches(path)
        }
    }
}
