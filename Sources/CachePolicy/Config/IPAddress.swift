/// An IPv4 or IPv6 address as its 4 or 16 bytes, parsed without the C library so config
/// validation stays pure.
public struct IPAddress: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    public init?(_ text: String) {
        if text.contains(":") {
            guard let bytes = IPAddress.parseIPv6(text) else { return nil }
            self.bytes = bytes
        } else {
            guard let bytes = IPAddress.parseIPv4(text) else { return nil }
            self.bytes = bytes
        }
    }

    public var isIPv4: Bool { bytes.count == 4 }

    /// `::ffff:a.b.c.d` as the IPv4 address it carries; other addresses unchanged.
    public var unmappingIPv4: IPAddress {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else {
            return self
        }
        return IPAddress(bytes: Array(bytes[12..<16]))!  // 4 bytes: always valid
    }

    public var isLoopback: Bool {
        let address = unmappingIPv4
        if address.isIPv4 { return address.bytes[0] == 127 }
        return address.bytes == [UInt8](repeating: 0, count: 15) + [1]
    }

    public var description: String {
        if isIPv4 { return bytes.map(String.init).joined(separator: ".") }
        var groups: [String] = []
        for index in stride(from: 0, to: 16, by: 2) {
            groups.append(String(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]), radix: 16))
        }
        return groups.joined(separator: ":")
    }

    static func parseIPv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCIIDigit), let value = UInt8(part) else {
                return nil
            }
            bytes.append(value)
        }
        return bytes
    }

    static func parseIPv6(_ text: String) -> [UInt8]? {
        var text = Substring(text)
        if text.hasPrefix("[") && text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: Substring) -> [UInt8]? {
            if part.isEmpty { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains(".") {
                    guard let v4 = parseIPv4(String(piece)) else { return nil }
                    bytes += v4
                    continue
                }
                guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}

extension Substring {
    fileprivate func components(separatedBy separator: String) -> [Substring] {
        var parts: [Substring] = []
        var rest = self[...]
        while let range = rest.firstRange(of: separator) {
            parts.append(rest[..<range.lowerBound])
            rest = rest[range.upperBound...]
        }
        parts.append(rest)
        return parts
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}

/// An address range such as `127.0.0.0/8` or `::1/128`.
public struct CIDR: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var network: IPAddress
    public var prefixLength: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let first = parts.first, let address = IPAddress(String(first)) else { return nil }
        let maxLength = address.bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...maxLength).contains(length) else { return nil }
            prefixLength = length
        } else {
            prefixLength = maxLength
        }
        network = address
    }

    public var description: String { "\(network)/\(prefixLength)" }

    public func contains(_ address: IPAddress) -> Bool {
        let candidate = network.isIPv4 ? address.unmappingIPv4 : address
        guard candidate.bytes.count == network.bytes.count else { return false }
        var remaining = prefixLength
        for (a, b) in zip(candidate.bytes, network.bytes) {
            if remaining <= 0 { return true }
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if a & mask != b & mask { return false }
            remaining -= 8
        }
        return true
    }
}
