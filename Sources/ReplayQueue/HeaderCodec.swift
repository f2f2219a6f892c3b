import HTTPWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Stores header fields as a JSON array of `[name, value]` pairs: order and repeats kept, and readable with `sqlite3`.
package enum HeaderCodec {
    package static func encode(_ headers: HTTPHeaders) -> String {
        let pairs = headers.fields.map { [$0.name, $0.value] }
        // Encoding an array of string arrays cannot fail.
        let data = (try? JSONEncoder().encode(pairs)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Nil when the text is not what `encode` writes.
    package static func decode(_ text: String) -> HTTPHeaders? {
        guard let pairs = try? JSONDecoder().decode([[String]].self, from: Data(text.utf8)),
            pairs.allSatisfy({ $0.count == 2 })
        else { return nil }
        return HTTPHeaders(pairs.map { HTTPField($0[0], $0[1]) })
    }
}
