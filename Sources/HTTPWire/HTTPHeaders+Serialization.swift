extension HTTPHeaders {
    /// Appends `name: value\r\n` for every field in order, then the empty line that ends the section.
    func serialize(into bytes: inout [UInt8]) {
        for field in fields {
            Self.appendSanitized(field.name, to: &bytes)
            bytes.append(HTTPSyntax.colon)
            bytes.append(HTTPSyntax.space)
            Self.appendSanitized(field.value, to: &bytes)
            bytes.append(HTTPSyntax.cr)
            bytes.append(HTTPSyntax.lf)
        }
        bytes.append(HTTPSyntax.cr)
        bytes.append(HTTPSyntax.lf)
    }

    /// A rough size of the serialized section, to reserve capacity once.
    var serializedSizeEstimate: Int {
        fields.reduce(2) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }

    /// Appends `text`, turning NUL, CR and LF into SP (RFC 9110 §5.5), so a value that came from elsewhere
    /// (an origin, a config file) can never end the line early and inject a field or a response.
    static func appendSanitized(_ text: String, to bytes: inout [UInt8]) {
        text.withUTF8Bytes { utf8 in
            // Scanning the buffer, then copying it whole, is far cheaper than appending byte by byte.
            if !utf8.contains(where: isLineBreaking) {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                bytes.append(isLineBreaking(byte) ? HTTPSyntax.space : byte)
            }
        }
    }

    @inline(__always)
    private static func isLineBreaking(_ byte: UInt8) -> Bool {
        byte == 0 || byte == HTTPSyntax.cr || byte == HTTPSyntax.lf
    }
}
