/// Buffered reads from one blocking socket, for the harness's own HTTP/1.1 framing (never HTTPWire's).
///
/// A value owned by one thread at a time. Every read takes an optional deadline; `nil` waits until the peer
/// sends or closes, or until the socket is shut down by a stopping server.
struct ByteStream {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private(set) var peerClosed = false

    init(fd: Int32) {
        self.fd = fd
    }

    var buffered: ArraySlice<UInt8> { buffer[start...] }

    /// Reads one head up to and including its blank line; returns it without the blank line.
    /// Returns `nil` if the peer closed before sending anything; throws if it closed mid-head.
    mutating func readHead(limit: Int = 1 << 20, deadline: ContinuousClock.Instant?) throws -> [UInt8]? {
        var scanned = start
        while true {
            if let end = Self.blankLine(in: buffer, from: scanned, start: start) {
                let head = Array(buffer[start..<end.headEnd])
                consume(upTo: end.next)
                return head
            }
            scanned = max(start, buffer.count - 3)
            if buffer.count - start > limit { throw HarnessError.malformed("head longer than \(limit) bytes") }
            guard try fill(deadline: deadline) else {
                if buffered.isEmpty { return nil }
                throw HarnessError.malformed("connection closed in the middle of a head")
            }
        }
    }

    /// Reads one line ending in LF (CRLF or bare LF) and returns it without the line ending.
    mutating func readLine(deadline: ContinuousClock.Instant?) throws -> String {
        var scanned = start
        while true {
            if let newline = buffer[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > start && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                consume(upTo: newline + 1)
                return line
            }
            scanned = buffer.count
            guard try fill(deadline: deadline) else { throw HarnessError.malformed("connection closed mid-line") }
        }
    }

    /// Reads exactly `count` bytes; throws if the peer closes first.
    mutating func read(count: Int, deadline: ContinuousClock.Instant?) throws -> [UInt8] {
        while buffer.count - start < count {
            guard try fill(deadline: deadline) else {
                throw HarnessError.malformed("connection closed after \(buffer.count - start) of \(count) bytes")
            }
        }
        let bytes = Array(buffer[start..<start + count])
        consume(upTo: start + count)
        return bytes
    }

    /// Returns what is buffered, or else waits for the next bytes; `[]` once the peer has closed.
    mutating func readAvailable(deadline: ContinuousClock.Instant?) throws -> [UInt8] {
        if buffered.isEmpty { _ = try fill(deadline: deadline) }
        let bytes = Array(buffered)
        consume(upTo: buffer.count)
        return bytes
    }

    /// Reads until the peer closes.
    mutating func readToEnd(deadline: ContinuousClock.Instant?) throws -> [UInt8] {
        while try fill(deadline: deadline) {}
        let bytes = Array(buffered)
        consume(upTo: buffer.count)
        return bytes
    }

    /// Decodes a chunked body (RFC 9112 §7.1), skipping chunk extensions and trailer fields.
    mutating func readChunkedBody(deadline: ContinuousClock.Instant?) throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let line = try readLine(deadline: deadline)
            let digits = line.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let size = Int(digits.trimmingSpaces, radix: 16), size >= 0 else {
                throw HarnessError.malformed("bad chunk size line \(line.debugDescription)")
            }
            if size == 0 { break }
            body += try read(count: size, deadline: deadline)
            guard try readLine(deadline: deadline).isEmpty else {
                throw HarnessError.malformed("chunk data not followed by CRLF")
            }
        }
        while try !readLine(deadline: deadline).isEmpty {}
        return body
    }

    /// Appends the next bytes from the socket; `false` when the peer has closed.
    private mutating func fill(deadline: ContinuousClock.Instant?) throws -> Bool {
        if peerClosed { return false }
        let bytes = try Socket.receive(fd, deadline: deadline)
        if bytes.isEmpty {
            peerClosed = true
            return false
        }
        buffer += bytes
        return true
    }

    private mutating func consume(upTo index: Int) {
        start = index
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 1 << 16 {
            buffer.removeSubrange(..<start)
            start = 0
        }
    }

    /// Finds the first empty line (CRLF CRLF, or bare LF LF) at or after `from`.
    private static func blankLine(in buffer: [UInt8], from: Int, start: Int) -> (headEnd: Int, next: Int)? {
        let lf = UInt8(ascii: "\n")
        let cr = UInt8(ascii: "\r")
        var index = buffer[from...].firstIndex(of: lf)
        while let newline = index {
            // A head ends at the first LF that is followed by an optional CR and another LF.
            var after = newline + 1
            if after < buffer.count && buffer[after] == cr { after += 1 }
            if after < buffer.count && buffer[after] == lf {
                var headEnd = newline
                if headEnd > start && buffer[headEnd - 1] == cr { headEnd -= 1 }
                return (headEnd, after + 1)
            }
            if after >= buffer.count { return nil }
            index = buffer[(newline + 1)...].firstIndex(of: lf)
        }
        return nil
    }
}
