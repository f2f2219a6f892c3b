import Testing

@testable import CacheStore

/// The body checksum is the CRC-32 of zlib and gzip: stored checksums written by any earlier build must still match,
/// whatever library computes it now.
@Suite("Body checksum (CRC-32)")
struct CRC32Tests {
    /// The CRC-32 bit by bit (reflected, polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF): slow and plain,
    /// the definition to hold the fast one to.
    private static func reference(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func pseudoRandom(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    @Test("the standard check value, and nothing for nothing")
    func checkValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
    }

    @Test("every length up to 1 KiB, from every alignment, matches the definition")
    func lengthsAndAlignments() {
        let bytes = Self.pseudoRandom(count: 1024 + 16, seed: 7)
        for offset in 0..<16 {
            for length in stride(from: 0, through: 1024, by: offset == 0 ? 1 : 61) {
                // Read in place, so the buffer starts `offset` bytes into the array's storage.
                let slice = bytes[offset..<(offset + length)]
                var crc = CRC32()
                slice.withUnsafeBytes { crc.update($0) }
                #expect(crc.value == Self.reference(slice), "offset \(offset), length \(length)")
            }
        }
    }

    @Test("a checksum fed in pieces equals the checksum of the whole, for a body of a few MiB")
    func runningChecksum() {
        let body = Self.pseudoRandom(count: 3 << 20, seed: 11)
        let whole = Self.reference(body)
        #expect(CRC32.checksum(body) == whole)
        var running = CRC32()
        var start = 0
        for size in [1, 7, 64, 4095, 65536, 1 << 20] where start < body.count {
            let end = min(body.count, start + size)
            body[start..<end].withUnsafeBytes { running.update($0) }
            start = end
        }
        body[start...].withUnsafeBytes { running.update($0) }
        #expect(running.value == whole)
    }
}
