/// Turns the bytes a client sends into request heads, body pieces and ends (RFC 9112), incrementally.
///
/// Append whatever the socket delivered, then call `next()` until it returns nil. The parser never reads a socket;
/// it keeps received bytes in one buffer and remembers how far it has scanned. Body bytes appended while nothing
/// else is buffered go straight into a `.body` piece (one copy); only those that arrive behind a head in the same
/// append pass through the buffer. Pipelined requests are parsed one after another from the same buffer.
public struct RequestParser: Sendable {
    /// Bounds on what a client may send before the parser gives up on it.
    public struct Limits: Sendable, Equatable {
        /// The longest request line, without its CRLF; a longer one is `.uriTooLong` (RFC 9112 §3).
        public var maxRequestLineBytes: Int
        /// The largest header section (and trailer section), counting every line and its terminator;
        /// a larger one is `.headersTooLarge`.
        public var maxHeaderBytes: Int
        /// The most header fields (and trailer fields) in one request; more is `.headersTooLarge`.
        public var maxHeaderCount: Int

        public init(maxRequestLineBytes: Int = 8192, maxHeaderBytes: Int = 65536, maxHeaderCount: Int = 256) {
            self.maxRequestLineBytes = maxRequestLineBytes
            self.maxHeaderBytes = maxHeaderBytes
            self.maxHeaderCount = maxHeaderCount
        }
    }

    /// Where the parser is in the current message; each phase carries only the data it needs.
    enum State: Sendable {
        /// Before a request line; empty lines seen so far are skipped (RFC 9112 §2.2).
        case requestLine(emptyLinesSkipped: Int)
        /// After the request line, collecting field lines until the empty line.
        case headerLines(PartialHead)
        /// Content-Length body (or no body, with `remaining` 0): `.end` follows once `remaining` reaches 0.
        case lengthBody(remaining: Int)
        /// Expecting `chunk-size [ chunk-ext ] CRLF` (RFC 9112 §7.1).
        case chunkSizeLine
        /// Inside a chunk's data.
        case chunkData(remaining: Int)
        /// Expecting the CRLF that follows a chunk's data.
        case chunkDataEnd
        /// After the last chunk, reading trailer fields to discard them (RFC 9112 §7.1.2).
        case trailerLines(bytes: Int, count: Int)
        /// After an error: nothing more is parsed.
        case finished
    }

    /// A request line whose header section is still arriving.
    struct PartialHead: Sendable {
        var method: String
        var target: String
        var version: HTTPVersion
        /// Bytes of the request line with its terminator.
        var lineBytes = 0
        var fields: [HTTPField] = []
        /// Bytes of the header section so far, terminators included, bounded by `maxHeaderBytes`.
        var sectionBytes = 0
    }

    /// Empty lines tolerated before a request line (RFC 9112 §2.2 asks for "at least one").
    static let maxLeadingEmptyLines = 4
    /// The longest chunk-size line, extensions included; extensions are ignored, so they need no more room.
    static let maxChunkLineBytes = 4096
    /// Consumed bytes at the front of the buffer are moved out only when there are at least this many,
    /// and no fewer than the unconsumed bytes, so compaction costs O(1) per byte.
    static let compactionThreshold = 4096
    /// An emptied buffer larger than this gives its memory back rather than keeping it for the next request.
    static let retainedCapacity = 65536

    let limits: Limits
    /// Received bytes; those from `readIndex` on are not parsed yet.
    var buffer: [UInt8] = []
    var readIndex = 0
    /// How far past `readIndex` the current line has been scanned without finding its end,
    /// so that appending a few bytes does not rescan the whole line.
    var lineScanned = 0
    /// Body pieces taken straight from `append` while nothing was buffered, so they are copied only once;
    /// each becomes one `.body` event, oldest first.
    var directBody: [[UInt8]] = []
    var directBodyByteCount = 0
    var state: State = .requestLine(emptyLinesSkipped: 0)

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Bytes received but not yet turned into events: unparsed bytes, the lines of a head that is not complete yet,
    /// and body bytes not yet handed out. Non-zero between requests means the client has started another one.
    public var bufferedByteCount: Int {
        var count = buffer.count - readIndex + directBodyByteCount
        if case .headerLines(let partial) = state {
            count += partial.lineBytes + partial.sectionBytes
        }
        return count
    }

    /// True between `.head` and `.end` of a request.
    public var isInsideMessage: Bool {
        switch state {
        case .lengthBody, .chunkSizeLine, .chunkData, .chunkDataEnd, .trailerLines: true
        case .requestLine, .headerLines, .finished: false
        }
    }

    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if bytes.isEmpty { return }
        if case .finished = state { return }
        bytes.withMemoryRebound(to: UInt8.self) { input in
            var input = input[...]
            if readIndex == buffer.count {
                // Nothing is waiting to be parsed, so body bytes can go straight into the next `.body` piece.
                input = takeDirectBody(from: input)
                if readIndex > 0 || buffer.capacity > Self.retainedCapacity {
                    buffer.removeAll(keepingCapacity: buffer.capacity <= Self.retainedCapacity)
                    readIndex = 0
                }
            } else if readIndex >= Self.compactionThreshold && readIndex >= buffer.count - readIndex {
                buffer.removeSubrange(0..<readIndex)
                readIndex = 0
            }
            if !input.isEmpty {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: input))
            }
        }
    }

    /// Moves the body bytes at the front of `input` into `directBody` when the parser is inside body data,
    /// and returns the rest.
    private mutating func takeDirectBody(
        from input: Slice<UnsafeBufferPointer<UInt8>>
    ) -> Slice<UnsafeBufferPointer<UInt8>> {
        let taken: Int
        switch state {
        case .lengthBody(let remaining) where remaining > 0:
            taken = min(remaining, input.count)
            state = .lengthBody(remaining: remaining - taken)
        case .chunkData(let remaining) where remaining > 0:
            taken = min(remaining, input.count)
            state = .chunkData(remaining: remaining - taken)
        default:
            return input
        }
        let split = input.startIndex + taken
        directBody.append(Array(UnsafeBufferPointer(rebasing: input[..<split])))
        directBodyByteCount += taken
        return input[split...]
    }

    /// The next event, or nil when more bytes are needed. After `.error`, the parser is finished:
    /// further calls return nil.
    public mutating func next() -> RequestEvent? {
        if !directBody.isEmpty {
            let piece = directBody.removeFirst()
            directBodyByteCount -= piece.count
            return .body(piece)
        }
        while true {
            switch step() {
            case .needMore: return nil
            case .proceed: continue
            case .emit(let event): return event
            }
        }
    }

    /// What one step of the state machine achieved.
    enum Step {
        /// The buffered bytes are exhausted; `state` says where to resume.
        case needMore
        /// `state` moved on without producing an event.
        case proceed
        /// An event to hand out, with `state` already moved past it.
        case emit(RequestEvent)
    }

    private mutating func step() -> Step {
        switch state {
        case .finished:
            return .needMore

        case .requestLine(let skipped):
            return continueRequestLine(emptyLinesSkipped: skipped)

        case .headerLines(var partial):
            // Park a placeholder so `partial.fields` is uniquely referenced while lines are appended.
            state = .finished
            return continueHead(&partial)

        case .lengthBody(let remaining):
            if remaining == 0 {
                state = .requestLine(emptyLinesSkipped: 0)
                return .emit(.end)
            }
            guard let piece = takeBufferedBody(upTo: remaining) else { return .needMore }
            state = .lengthBody(remaining: remaining - piece.count)
            return .emit(.body(piece))

        case .chunkSizeLine:
            return continueChunkSize()

        case .chunkData(let remaining):
            if remaining == 0 {
                state = .chunkDataEnd
                return .proceed
            }
            guard let piece = takeBufferedBody(upTo: remaining) else { return .needMore }
            state = .chunkData(remaining: remaining - piece.count)
            return .emit(.body(piece))

        case .chunkDataEnd:
            switch scanLine(limit: 2) {
            case .needMore:
                return .needMore
            case .line(let contentEnd, let lineEnd) where contentEnd == readIndex:
                consume(upTo: lineEnd)
                state = .chunkSizeLine
                return .proceed
            case .line, .tooLong, .bareCR:
                return fail(.badChunk("chunk data is not followed by CRLF"))
            }

        case .trailerLines(let bytes, let count):
            return continueTrailers(bytes: bytes, count: count)
        }
    }

    /// Reads the request line, skipping a few empty lines before it (RFC 9112 §2.2).
    private mutating func continueRequestLine(emptyLinesSkipped skipped: Int) -> Step {
        let limit = limits.maxRequestLineBytes < Int.max - 2 ? limits.maxRequestLineBytes + 2 : Int.max
        switch scanLine(limit: limit) {
        case .needMore:
            return .needMore
        case .tooLong:
            return fail(.uriTooLong)
        case .bareCR:
            return fail(.badRequestLine("it ends in a CR without LF"))
        case .line(let contentEnd, let lineEnd):
            if contentEnd == readIndex {
                if skipped >= Self.maxLeadingEmptyLines {
                    return fail(.badRequestLine("more than \(Self.maxLeadingEmptyLines) empty lines precede it"))
                }
                consume(upTo: lineEnd)
                state = .requestLine(emptyLinesSkipped: skipped + 1)
                return .proceed
            }
            if contentEnd - readIndex > limits.maxRequestLineBytes {
                return fail(.uriTooLong)
            }
            switch parseRequestLine(from: readIndex, to: contentEnd) {
            case .success(var partial):
                partial.lineBytes = lineEnd - readIndex
                consume(upTo: lineEnd)
                state = .headerLines(partial)
                return .proceed
            case .failure(let error):
                return fail(error)
            }
        }
    }

    /// Reads field lines until the empty line that ends the header section, then decides the framing.
    private mutating func continueHead(_ partial: inout PartialHead) -> Step {
        while true {
            switch scanLine(limit: limits.maxHeaderBytes - partial.sectionBytes) {
            case .needMore:
                state = .headerLines(partial)
                return .needMore
            case .tooLong:
                return fail(.headersTooLarge)
            case .bareCR:
                return fail(.badHeader("a line ends in a CR without LF"))
            case .line(let contentEnd, let lineEnd):
                partial.sectionBytes += lineEnd - readIndex
                if contentEnd == readIndex {
                    consume(upTo: lineEnd)
                    return finishHead(partial)
                }
                if partial.fields.count >= limits.maxHeaderCount {
                    return fail(.headersTooLarge)
                }
                switch parseFieldLine(from: readIndex, to: contentEnd) {
                case .success(let field):
                    partial.fields.append(field)
                    consume(upTo: lineEnd)
                case .failure(let error):
                    return fail(error)
                }
            }
        }
    }

    private mutating func finishHead(_ partial: PartialHead) -> Step {
        // RFC 9112 §3.2: a request with more than one Host field line must get a 400; with two, the proxy and the
        // origin could disagree about which site a response belongs to.
        if partial.fields.lazy.filter({ $0.name.equalsIgnoringASCIICase("Host") }).dropFirst().first != nil {
            return fail(.badHeader("more than one Host field"))
        }
        let framing: BodyFraming
        switch Self.framing(of: partial.fields, version: partial.version) {
        case .success(let found): framing = found
        case .failure(let error): return fail(error)
        }
        switch framing {
        case .none: state = .lengthBody(remaining: 0)
        case .length(let length): state = .lengthBody(remaining: length)
        case .chunked: state = .chunkSizeLine
        }
        let head = RequestHead(
            method: partial.method,
            target: partial.target,
            version: partial.version,
            headers: HTTPHeaders(partial.fields)
        )
        return .emit(.head(head, framing: framing))
    }

    /// Reads one `chunk-size [ chunk-ext ] CRLF` line (RFC 9112 §7.1).
    private mutating func continueChunkSize() -> Step {
        switch scanLine(limit: Self.maxChunkLineBytes) {
        case .needMore:
            return .needMore
        case .tooLong:
            return fail(.badChunk("a chunk-size line is longer than \(Self.maxChunkLineBytes) bytes"))
        case .bareCR:
            return fail(.badChunk("a chunk-size line ends in a CR without LF"))
        case .line(let contentEnd, let lineEnd):
            switch parseChunkSize(from: readIndex, to: contentEnd) {
            case .success(let size):
                consume(upTo: lineEnd)
                state = size == 0 ? .trailerLines(bytes: 0, count: 0) : .chunkData(remaining: size)
                return .proceed
            case .failure(let error):
                return fail(error)
            }
        }
    }

    /// Reads trailer field lines, checks and discards them (RFC 9112 §7.1.2), and ends the body at the empty line.
    private mutating func continueTrailers(bytes: Int, count: Int) -> Step {
        var bytes = bytes
        var count = count
        while true {
            switch scanLine(limit: limits.maxHeaderBytes - bytes) {
            case .needMore:
                state = .trailerLines(bytes: bytes, count: count)
                return .needMore
            case .tooLong:
                return fail(.badChunk("the trailer section is larger than \(limits.maxHeaderBytes) bytes"))
            case .bareCR:
                return fail(.badHeader("a trailer line ends in a CR without LF"))
            case .line(let contentEnd, let lineEnd):
                bytes += lineEnd - readIndex
                if contentEnd == readIndex {
                    consume(upTo: lineEnd)
                    state = .requestLine(emptyLinesSkipped: 0)
                    return .emit(.end)
                }
                count += 1
                if count > limits.maxHeaderCount {
                    return fail(.badChunk("the trailer section has more than \(limits.maxHeaderCount) fields"))
                }
                if case .failure(let error) = parseFieldLine(from: readIndex, to: contentEnd) {
                    return fail(error)
                }
                consume(upTo: lineEnd)
            }
        }
    }

    /// Up to `limit` buffered body bytes as one piece, or nil when none are buffered.
    private mutating func takeBufferedBody(upTo limit: Int) -> [UInt8]? {
        let available = buffer.count - readIndex
        if available == 0 { return nil }
        let end = readIndex + min(limit, available)
        let piece = Array(buffer[readIndex..<end])
        readIndex = end
        return piece
    }

    /// Marks the bytes before `lineEnd` as parsed.
    private mutating func consume(upTo lineEnd: Int) {
        readIndex = lineEnd
        lineScanned = 0
    }

    private mutating func fail(_ error: WireError) -> Step {
        state = .finished
        buffer = []
        readIndex = 0
        lineScanned = 0
        directBody = []
        directBodyByteCount = 0
        return .emit(.error(error))
    }
}
