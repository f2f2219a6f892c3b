import Glibc

/// Request and response bodies whose every byte is checked: patterns that a dropped, repeated or
/// reordered block would break, and a fast comparison for bodies of hundreds of MiB.
enum Payload {
    /// `count` bytes with a period (65 537) that no power-of-two buffer size divides.
    static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 65_537) }
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
                    if memcmp(received.baseAddress! + offset, expected.baseAddress!, length) != 0 {
                        // Both buffers are non-empty here, so the base addresses exist.
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
