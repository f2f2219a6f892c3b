// Compiled into one module with Sources/HTTPWire by Fuzz/run.sh, so no `import HTTPWire`.

/// libFuzzer's entry point: every input goes through the parser in several cuts and limits, through
/// `RequestTarget`/`AbsoluteURL` and through `HTTPDate`, and any broken invariant traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    ParserFuzz.check(input, limits: RequestParser.Limits())
    ParserFuzz.check(input, limits: ParserFuzz.smallLimits)
    TargetFuzz.check(String(decoding: input, as: UTF8.self))
    DateFuzz.check(String(decoding: input, as: UTF8.self))
    return 0
}

/// Stops the fuzzer with a message; libFuzzer saves the input that got here.
func violated(_ invariant: String, _ input: [UInt8]) -> Never {
    fatalError("invariant broken: \(invariant) for input \(String(decoding: input, as: UTF8.self).debugDescription)")
}

/// Parser invariants: no cut of the bytes changes the events, and the events are internally consistent.
enum ParserFuzz {
    /// A parser event with body pieces merged.
    enum Merged: Equatable {
        case head(RequestHead, BodyFraming)
        case body([UInt8])
        case end
        case error(WireError)
    }

    /// Limits small enough that short inputs reach them.
    static let smallLimits = RequestParser.Limits(maxRequestLineBytes: 40, maxHeaderBytes: 96, maxHeaderCount: 4)

    static func check(_ input: [UInt8], limits: RequestParser.Limits) {
        let whole = feed(input, cuts: [input.count], limits: limits)
        var cutsToTry: [[Int]] = [[input.count / 2, input.count]]
        if let first = input.first {
            cutsToTry.append([Int(first) % input.count, input.count])
        }
        cutsToTry.append(Array(stride(from: 7, to: input.count, by: 7)) + [input.count])
        if input.count <= 2048 {
            cutsToTry.append(Array(1...max(input.count, 1)))
        }
        for cuts in cutsToTry where feed(input, cuts: cuts, limits: limits) != whole {
            violated("cutting at \(cuts.prefix(8)) changed the events", input)
        }
        checkConsistency(whole, input: input)
    }

    /// Appends `input` in pieces ending at each of `cuts`, draining the parser after every append.
    static func feed(_ input: [UInt8], cuts: [Int], limits: RequestParser.Limits) -> [Merged] {
        var parser = RequestParser(limits: limits)
        var events: [Merged] = []
        var start = 0
        var failed = false
        for cut in cuts where cut > start && cut <= input.count {
            input[start..<cut].withUnsafeBytes { parser.append($0) }
            start = cut
            if parser.bufferedByteCount > start { violated("bufferedByteCount exceeds the bytes fed", input) }
            while let event = parser.next() {
                if failed { violated("an event after an error", input) }
                switch event {
                case .head(let head, let framing):
                    if !parser.isInsideMessage { violated("not inside a message after its head", input) }
                    events.append(.head(head, framing))
                case .body(let bytes):
                    if bytes.isEmpty { violated("an empty body piece", input) }
                    if case .body(let previous) = events.last {
                        events[events.count - 1] = .body(previous + bytes)
                    } else {
                        events.append(.body(bytes))
                    }
                case .end:
                    if parser.isInsideMessage { violated("still inside a message after its end", input) }
                    events.append(.end)
                case .error(let error):
                    failed = true
                    events.append(.error(error))
                }
            }
        }
        if failed {
            parser.append([0x47, 0x45, 0x54, 0x20, 0x2F, 0x20, 0x0D, 0x0A, 0x0D, 0x0A])
            if parser.next() != nil { violated("an event after an error", input) }
            if parser.bufferedByteCount != 0 { violated("bytes kept after an error", input) }
        }
        return events
    }

    /// Heads are followed by a body of the length they announced and an end; a head serializes and parses back
    /// to itself; errors have a status and a message.
    static func checkConsistency(_ events: [Merged], input: [UInt8]) {
        var index = 0
        while index < events.count {
            switch events[index] {
            case .head(let head, let framing):
                checkRoundTrip(head, framing: framing, input: input)
                guard index + 1 < events.count else { return }
                var next = events[index + 1]
                var bodyCount = 0
                if case .body(let bytes) = next {
                    bodyCount = bytes.count
                    guard index + 2 < events.count else { return }
                    next = events[index + 2]
                    index += 1
                }
                if case .error = next { return }
                if next != .end { violated("a head's body is not followed by its end", input) }
                switch framing {
                case .none where bodyCount != 0:
                    violated("a body without framing", input)
                case .length(let length) where bodyCount != length:
                    violated("a body of \(bodyCount) bytes for Content-Length \(length)", input)
                default:
                    break
                }
                index += 2
            case .error(let error):
                if ![400, 414, 431, 501, 505].contains(error.status) || error.message.isEmpty {
                    violated("error \(error) has no proper status or message", input)
                }
                index += 1
            case .body, .end:
                violated("a body or end without a head", input)
            }
        }
    }

    /// A parsed head, serialized, parses back to the same head and framing.
    static func checkRoundTrip(_ head: RequestHead, framing: BodyFraming, input: [UInt8]) {
        var parser = RequestParser(limits: RequestParser.Limits(maxRequestLineBytes: .max, maxHeaderBytes: .max))
        parser.append(head.serialized())
        guard case .head(let again, let againFraming) = parser.next(), again == head, againFraming == framing else {
            violated("a head does not survive serialization", input)
        }
    }
}

/// Target invariants: whatever parses as a URL is normalised so that its description parses back to itself.
enum TargetFuzz {
    static func check(_ text: String) {
        for method in ["GET", "CONNECT", "OPTIONS"] {
            guard let target = try? RequestTarget(parsing: text, method: method) else { continue }
            switch target {
            case .absolute(let url):
                checkURL(url, text)
            case .authority(let host, let port):
                if host.isEmpty || !(1...65535).contains(port) { violated("bad authority", Array(text.utf8)) }
            case .origin(let path):
                if path.utf8.first != 0x2F { violated("origin-form without /", Array(text.utf8)) }
            case .asterisk:
                if text != "*" { violated("asterisk from something else", Array(text.utf8)) }
            }
        }
        if let url = AbsoluteURL(string: text) { checkURL(url, text) }
    }

    static func checkURL(_ url: AbsoluteURL, _ text: String) {
        guard AbsoluteURL(string: url.description) == url,
            url.scheme == "http" || url.scheme == "https",
            !url.host.isEmpty, url.path.utf8.first == 0x2F, (1...65535).contains(url.port)
        else { violated("URL \(url) does not survive its description", Array(text.utf8)) }
    }
}

/// Date invariants: whatever parses formats to an IMF-fixdate that parses to the same instant.
enum DateFuzz {
    static func check(_ text: String) {
        guard let seconds = HTTPDate.parse(text) else { return }
        let formatted = HTTPDate.format(secondsSince1970: seconds)
        if formatted.utf8.count != 29 || HTTPDate.parse(formatted) != seconds {
            violated("date \(seconds) does not survive formatting as \(formatted)", Array(text.utf8))
        }
    }
}
