/// A compiled wildcard pattern over bytes: `*` matches any run of bytes without the separator (a host label, a
/// path segment), `**` any run at all. Matching runs the pattern as a bit-parallel automaton: linear in the
/// subject, no backtracking and no allocation, so a request can never make it slow.
struct Glob: Sendable, Equatable {
    enum Element: Sendable, Equatable {
        case byte(UInt8)
        /// `*`: any bytes but the separator.
        case star
        /// `**`: any bytes.
        case globstar
    }

    /// The longest pattern, in elements, that fits the automaton's 128-bit state (one bit per position).
    static let maximumLength = 127

    let elements: [Element]
    /// The byte `*` does not cross (`.` in hosts, `/` in paths); nil when `*` crosses everything.
    let separator: UInt8?
    private let wildcards: UInt128

    /// Compiles `text`; nil when it is longer than `maximumLength` elements.
    init?(_ text: String, separator: UInt8?) {
        var elements: [Element] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x2A {
                if index + 1 < bytes.count && bytes[index + 1] == 0x2A {
                    elements.append(.globstar)
                    index += 2
                } else {
                    elements.append(separator == nil ? .globstar : .star)
                    index += 1
                }
            } else {
                elements.append(.byte(bytes[index]))
                index += 1
            }
        }
        self.init(elements: elements, separator: separator)
    }

    init?(elements: [Element], separator: UInt8?) {
        guard elements.count <= Glob.maximumLength else { return nil }
        var wildcards: UInt128 = 0
        for (position, element) in elements.enumerated() {
            if case .byte = element { continue }
            wildcards |= 1 << position
        }
        self.elements = elements
        self.separator = separator
        self.wildcards = wildcards
    }

    /// Whether the pattern has any wildcard; without one it matches only its own text.
    var hasWildcards: Bool { wildcards != 0 }

    func matches(_ subject: String) -> Bool {
        var subject = subject
        return subject.withUTF8 { matches($0) }
    }

    func matches(_ subject: UnsafeBufferPointer<UInt8>) -> Bool {
        let accept: UInt128 = 1 << elements.count
        var state = closure(1)
        for byte in subject {
            var next: UInt128 = 0
            var active = state & ~accept
            while active != 0 {
                let position = active.trailingZeroBitCount
                active &= active - 1
                switch elements[position] {
                case .byte(let expected): if expected == byte { next |= 1 << (position + 1) }
                case .star: if byte != separator { next |= 1 << position }
                case .globstar: next |= 1 << position
                }
            }
            if next == 0 { return false }
            state = closure(next)
        }
        return state & accept != 0
    }

    /// Adds the positions reachable without consuming a byte: a wildcard may match nothing.
    private func closure(_ state: UInt128) -> UInt128 {
        var state = state
        var pending = state & wildcards
        while pending != 0 {
            let position = pending.trailingZeroBitCount
            pending &= pending - 1
            let after: UInt128 = 1 << (position + 1)
            if state & after == 0 {
                state |= after
                pending |= after & wildcards
            }
        }
        return state
    }
}
