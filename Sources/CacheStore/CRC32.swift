import CZlib

/// A running CRC-32 (zlib's), the checksum each body is stored and verified with.
struct CRC32: Sendable, Equatable {
    private(set) var value: UInt32 = 0

    mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard var base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var remaining = buffer.count
        // zlib takes a 32-bit length; feed larger buffers in slices.
        while remaining > 0 {
            let slice = min(remaining, 1 << 30)
            value = UInt32(truncatingIfNeeded: crc32(uLong(value), base, uInt(slice)))
            base += slice
            remaining -= slice
        }
    }

    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
