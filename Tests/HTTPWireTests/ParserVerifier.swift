import HTTPWire
import Testing

/// A parser event with body pieces merged, so feeds that cut the body differently compare equal.
enum Parsed: Equatable, Sendable, CustomStringConvertible {
    case head(RequestHead, BodyFraming)
    case body([UInt8])
    case end
    case error(WireError)

    static func head(
        _ method: String,
        _ target: String,
        _ version: HTTPVersion = .http1_1,
        _ headers: HTTPHeaders = [:],
        framing: BodyFraming = .none
    ) -> Parsed {
        .head(RequestHead(method: method, target: target, version: version, headers: headers), framing)
    }

    static func text(_ text: String) -> Parsed { .body(Array(text.utf8)) }

    var description: String {
        switch self {
        case .head(let head, let framing):
            let fields = head.headers.fields.map { "\($0.name): \($0.value)" }
            return "head(\(head.method) \(head.target) \(head.version) \(fields) \(framing))"
        case .body(let bytes): return "body(\(String(decoding: bytes, as: UTF8.self).debugDescription))"
        case .end: return "end"
        case .error(let error): return "error(\(error))"
        }
    }
}

/// A request stream and what the parser must make of it.
struct ParserFixture: Sendable, CustomTestStringConvertible {
    let name: String
    let input: [UInt8]
    let limits: RequestParser.Limits
    let expected: [Parsed]

    init(_ name: String, _ input: String, limits: RequestParser.Limits = .init(), _ expected: [Parsed]) {
        self.init(name, bytes: Array(input.utf8), limits: limits, expected)
    }

    init(_ name: String, bytes: [UInt8], limits: RequestParser.Limits = .init(), _ expected: [Parsed]) {
        self.name = name
        self.input = bytes
        self.limits = limits
        self.expected = expected
    }

    var testDescription: String { name }
}

/// Feeds the parser the same bytes in different cuts and requires the same events from each
/// (after SwiftNIO's `ByteToMessageDecoderVerifier`).
enum ParserVerifier {
    /// Feeds `input` whole, byte by byte, and split in two at every point; returns the events of the whole feed
    /// after recording an issue for every cut that disagrees with it.
    static func verify(
        _ input: [UInt8],
        limits: RequestParser.Limits = .init(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [Parsed] {
        let whole = feed([input[...]], limits: limits, sourceLocation: sourceLocation)
        let byteByByte = feed(input.indices.map { input[$0...$0] }, limits: limits, sourceLocation: sourceLocation)
        #expect(byteByByte == whole, "fed byte by byte", sourceLocation: sourceLocation)
        for split in input.indices.dropFirst() {
            let halves = feed([input[..<split], input[split...]], limits: limits, sourceLocation: sourceLocation)
            if halves != whole {
                Issue.record("split at byte \(split): \(halves) != \(whole)", sourceLocation: sourceLocation)
                break
            }
        }
        return whole
    }

    /// Appends each piece and drains the parser after every append, checking the invariants that hold for any
    /// input: body pieces are never empty, nothing follows an error, and the buffer never holds more than was fed.
    static func feed(
        _ pieces: [ArraySlice<UInt8>],
        limits: RequestParser.Limits = .init(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [Parsed] {
        var parser = RequestParser(limits: limits)
        var events: [Parsed] = []
        var fed = 0
        var failed = false
        for piece in pieces {
            parser.append(Array(piece))
            fed += piece.count
            #expect(parser.bufferedByteCount <= fed, sourceLocation: sourceLocation)
            while let event = parser.next() {
                #expect(!failed, "an event after an error", sourceLocation: sourceLocation)
                switch event {
                case .head(let head, let framing):
                    events.append(.head(head, framing))
                case .body(let bytes):
                    #expect(!bytes.isEmpty, "an empty body piece", sourceLocation: sourceLocation)
                    if case .body(let previous) = events.last {
                        events[events.count - 1] = .body(previous + bytes)
                    } else {
                        events.append(.body(bytes))
                    }
                case .end:
                    events.append(.end)
                case .error(let error):
                    failed = true
                    events.append(.error(error))
                }
            }
        }
        if failed {
            parser.append(Array("GET / HTTP/1.1\r\n\r\n".utf8))
            #expect(parser.next() == nil, "the parser is finished after an error", sourceLocation: sourceLocation)
        }
        return events
    }
}
