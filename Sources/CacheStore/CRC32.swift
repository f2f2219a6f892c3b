import CDeflate

/// A running CRC-32 (the one of zlib, gzip and PNG: polynomial 0x04C11DB7, reflected), the checksum each body is
/// stored and verified with. Computed by libdeflate, which gives zlib's values faster.
struct CRC32: Sendable, Equatable {
    private(set) var value: UInt32 = 0

    mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        value = libdeflate_crc32(value, base, buffer.count)
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
