import Glibc

/// Request and response bodies whose every byte is checked: patterns that a dropped, repeated or
/// reordered block would break, and a fast comparison for bodies of hundreds of MiB.
enum Payload {
    /// `count` bytes with a period (65 537) that no power-of-two buffer size divides: byte `i` is
    /// `(31·i + i / 65 537) mod 256`.
    static func pattern(_ count: Int) -> [UInt8] {
        // Block k (65 537 bytes) is block 0 plus 32·k, since 65 537 ≡ 1 (mod 256); eight blocks repeat.
        // Built by copying blocks, because a per-byte loop over hundreds of MiB is slow in a debug build.
        let period = 65_537
        let blocks = (0..<8).map { k in (0..<period).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ k &* 32) } }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        var block = 0
        while bytes.count < count {
            bytes += blocks[block % 8].prefix(count - bytes.count)
            block += 1
        }
        return bytes
    }

    /// Whether two bodies are byte for byte the same (memcmp, fast even in a debug build).
    static func same(_ first: [UInt8], _ second: [UInt8]) -> Bool {
        guard first.count == second.count else { return false }
        return first.withUnsafeBytes { a in
            second.withUnsafeBytes { b in a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
        }
    }

    /// The offset of the first byte of `body` that differs from `OriginResponse.Body.generated`, or nil.
    static func firstGeneratedMismatch(_ body: [UInt8]) -> Int? {
        let period = 251
        let block = (0..<(period * 4096)).map { OriginResponse.Body.generatedByte(at: $0) }
        return body.withUnsafeBytes { received in
            block.withUnsafeBytes { expected in
                var offset = 0
                while offset < received.count {
                    let length = min(expected.count, received.count - offset)
                    // Both buffers are non-empty here, so the base addresses exist.
                    if memcmp(received.baseAddress! + offset, expected.baseAddress!, length) != 0 {
                        return (offset..<offset + length).first {
                            received[$0] != OriginResponse.Body.generatedByte(at: $0)
                        }
                    }
                    offset += length
                }
                return nil
            }
        }
    }
}
