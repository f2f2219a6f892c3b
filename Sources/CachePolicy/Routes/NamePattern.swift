/// A query parameter name or a glob over names (`utm_*`): `*` matches any run of characters.
public struct NamePattern: Sendable, Equatable, CustomStringConvertible {
    /// The pattern as written in the config.
    public let text: String
    private let glob: Glob?

    /// Nil when a glob is longer than the matcher takes.
    public init?(_ text: String) {
        self.text = text
        if text.contains("*") {
            guard let glob = Glob(text, separator: nil) else { return nil }
            self.glob = glob
        } else {
            glob = nil
        }
    }

    public var description: String { text }

    public func matches(_ name: Substring) -> Bool {
        guard let glob else { return name == text }
        var name = String(name)
        return name.withUTF8 { glob.matches($0) }
    }

    public func matches(_ name: String) -> Bool { matches(name[...]) }
}
