import HTTPWire

/// The stored form of a response head and of header fields: a version byte, then LEB128 lengths and numbers,
/// and UTF-8 strings. Private to the store, so it does not depend on the wire serializer.
enum HeadCodec {
    static let formatVersion: UInt8 = 1

    static func encode(_ head: ResponseHead) -> [UInt8] {
        var writer = Writer()
        writer.bytes.reserveCapacity(
            1 + Writer.numberSize(head.version.major) + Writer.numberSize(head.version.minor)
                + Writer.numberSize(head.status) + Writer.stringSize(head.reason) + Writer.fieldsSize(head.headers))
        writer.bytes.append(formatVersion)
        writer.number(head.version.major)
        writer.number(head.version.minor)
        writer.number(head.status)
        writer.string(head.reason)
        writer.fields(head.headers)
        return writer.bytes
    }

    static func encode(_ headers: HTTPHeaders) -> [UInt8] {
        // Most stored responses have no `Vary`, so no request fields to keep: one shared encoding, not one each.
        if headers.isEmpty { return emptyFields }
        var writer = Writer()
        writer.bytes.reserveCapacity(1 + Writer.fieldsSize(headers))
        writer.bytes.append(formatVersion)
        writer.fields(headers)
        return writer.bytes
    }

    private static let emptyFields: [UInt8] = {
        var writer = Writer()
        writer.bytes.append(formatVersion)
        writer.fields([:])
        return writer.bytes
    }()

    /// Nil when the bytes are not a head this version wrote.
    static func decodeHead(_ bytes: [UInt8]) -> ResponseHead? {
        var reader = Reader(bytes: bytes)
        guard reader.byte() == formatVersion,
            let major = reader.number(), let minor = reader.number(), let status = reader.number(),
            let reason = reader.string(), let headers = reader.fields(), reader.isAtEnd
        else { return nil }
        return ResponseHead(
            version: HTTPVersion(major: major, minor: minor), status: status, reason: reason, headers: headers)
    }

    static func decodeHeaders(_ bytes: [UInt8]) -> HTTPHeaders? {
        var reader = Reader(bytes: bytes)
        guard reader.byte() == formatVersion, let headers = reader.fields(), reader.isAtEnd else { return nil }
        return headers
    }

    private struct Writer {
        var bytes: [UInt8] = []

        /// What `number` appends: seven bits a byte. Sizes are computed up front so the buffer is allocated once.
        static func numberSize(_ value: Int) -> Int {
            max(1, (UInt64.bitWidth - UInt64(truncatingIfNeeded: value).leadingZeroBitCount + 6) / 7)
        }

        static func stringSize(_ value: String) -> Int {
            numberSize(value.utf8.count) + value.utf8.count
        }

        static func fieldsSize(_ headers: HTTPHeaders) -> Int {
            headers.reduce(numberSize(headers.count)) { $0 + stringSize($1.name) + stringSize($1.value) }
        }

        mutating func number(_ value: Int) {
            var rest = UInt64(truncatingIfNeeded: value)
            repeat {
                let low = UInt8(rest & 0x7F)
                rest >>= 7
                bytes.append(rest == 0 ? low : low | 0x80)
            } while rest != 0
        }

        mutating func string(_ value: String) {
            number(value.utf8.count)
            bytes.append(contentsOf: value.utf8)
        }

        mutating func fields(_ headers: HTTPHeaders) {
            number(headers.count)
            for field in headers {
                string(field.name)
                string(field.value)
            }
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func number() -> Int? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while let byte = byte() {
                guard shift < 64 else { return nil }
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return Int(exactly: value) }
                shift += 7
            }
            return nil
        }

        mutating func string() -> String? {
            guard let count = number(), count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
        }

        mutating func fields() -> HTTPHeaders? {
            guard let count = number(), count <= bytes.count - offset else { return nil }
            var fields: [HTTPField] = []
            fields.reserveCapacity(count)
            for _ in 0..<count {
                guard let name = string(), let value = string() else { return nil }
                fields.append(HTTPField(name, value))
            }
            return HTTPHeaders(fields)
        }
    }
}
