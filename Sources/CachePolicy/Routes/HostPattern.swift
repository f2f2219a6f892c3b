/// A route's `match.host`, compiled when the config loads. Hosts compare case-insensitively: the pattern is
/// lowercased here and `AbsoluteURL` lowercases the request's host.
///
/// - `example.com`: that host only.
/// - `*.example.com`: any sub-domain at any depth (`a.example.com`, `a.b.example.com`), not `example.com` itself.
/// - `*`: every host.
/// - other `*`: any run of characters within one label (`api-*.example.com`); `**` crosses labels.
public struct HostPattern: Sendable, Equatable, CustomStringConvertible {
    enum Form: Sendable, Equatable {
        case any
        case exact(String)
        /// The suffix, with its leading dot: `.example.com`.
        case subdomains(of: String)
        case glob(Glob)
    }

    /// The pattern as written in the config.
    public let text: String
    let form: Form

    /// Nil when the text is not a host pattern; `problem(with:)` says why.
    public init?(_ text: String) {
        guard HostPattern.problem(with: text) == nil else { return nil }
        let lowered = text.asciiLowercased
        self.text = text
        if lowered == "*" || lowered == "**" {
            form = .any
        } else if lowered.hasPrefix("*."), !lowered.dropFirst(2).contains("*") {
            form = .subdomains(of: String(lowered.dropFirst()))
        } else if lowered.contains("*") {
            var elements: [Glob.Element] = []
            var rest = Substring(lowered)
            if rest.hasPrefix("*.") {
                // A leading "*." stands for any sub-domain, as in the plain `*.example.com` form.
                elements.append(.globstar)
                rest = rest.dropFirst()
            }
            // `problem(with:)` bounded the length.
            let tail = Glob(String(rest), separator: 0x2E)!
            form = .glob(Glob(elements: elements + tail.elements, separator: 0x2E)!)
        } else {
            form = .exact(lowered)
        }
    }

    public var description: String { text }

    /// Why `text` cannot be a host pattern, or nil when it can.
    static func problem(with text: String) -> String? {
        if text.isEmpty { return "must not be empty" }
        if text.contains("/") { return "a host has no \"/\"; put paths in match.path" }
        if text.hasPrefix("[") { return "write an IPv6 address without brackets" }
        let colons = text.utf8.count { $0 == 0x3A }
        if colons == 1 { return "a host has no port; put it in match.port" }
        let allowed = text.utf8.allSatisfy { byte in
            let lower = byte | 0x20
            return (lower >= 0x61 && lower <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E
                || byte == 0x5F || byte == 0x7E || byte == 0x2A || byte == 0x3A
        }
        if !allowed { return "may contain only letters, digits, \"-\", \".\", \"_\", \"~\", \":\" and \"*\"" }
        if text.utf8.count > Glob.maximumLength && text.contains("*") {
            return "a pattern with \"*\" may be at most \(Glob.maximumLength) characters"
        }
        return nil
    }

    /// Whether `host` (lowercased, as `AbsoluteURL` keeps it) matches.
    public func matches(_ host: String) -> Bool {
        switch form {
        case .any:
            return true
        case .exact(let expected):
            return host == expected
        case .subdomains(let suffix):
            let hostBytes = host.utf8
            let suffixBytes = suffix.utf8
            return hostBytes.count > suffixBytes.count
                && hostBytes.dropFirst(hostBytes.count - suffixBytes.count).elementsEqual(suffixBytes)
        case .glob(let glob):
            return glob.matches(host)
        }
    }
}
