import Glibc

/// Bytes waiting for a client socket to accept them, in order: pieces of memory, and ranges of open
/// files that go out with `sendfile`, never through user space. Each chunk may carry an action to run
/// once it is fully written (flow control for the producer of the bytes).
struct OutputQueue {
    struct Chunk {
        var bytes: [UInt8]
        /// When set, the chunk is `file.length` bytes of this file instead of `bytes`.
        var file: FileRange?
        var offset = 0
        var onWritten: (() -> Void)?

        var length: Int { file?.length ?? bytes.count }
    }

    /// `length` bytes of `file` from `start`; the chunk keeps the file open until they are written.
    struct FileRange {
        var file: OpenFile
        var start: Int
        var length: Int
    }

    private var chunks: [Chunk] = []
    private var head = 0

    var isEmpty: Bool { head == chunks.count }

    mutating func append(_ bytes: [UInt8], onWritten: (() -> Void)? = nil) {
        guard !bytes.isEmpty else {
            if let onWritten {
                chunks.append(Chunk(bytes: [], onWritten: onWritten))
            }
            return
        }
        chunks.append(Chunk(bytes: bytes, onWritten: onWritten))
    }

    mutating func append(_ range: FileRange, onWritten: (() -> Void)? = nil) {
        chunks.append(Chunk(bytes: [], file: range.length > 0 ? range : nil, onWritten: onWritten))
    }

    /// The most chunks handed to one `writev`: a response head, its body, and chunked framing fit.
    static let gatherLimit = 16

    /// Writes the unwritten bytes, in order: runs of memory chunks (up to `gatherLimit`) through `write`
    /// as one gathered write, file ranges through `send`, until either reports 0 or less (would block /
    /// error); returns that result, or 1 when everything was written. Completed chunks' actions run after
    /// their bytes left. One system call per response on the hit path, not one per piece.
    mutating func drain(
        _ write: (UnsafeBufferPointer<iovec>) -> Int,
        sendFile send: (_ descriptor: Int32, _ offset: Int, _ count: Int) -> Int
    ) -> Int {
        while true {
            completeWrittenChunks()
            if head == chunks.count { break }
            let written: Int
            if let range = chunks[head].file {
                let offset = chunks[head].offset
                written = send(range.file.descriptor, range.start + offset, range.length - offset)
            } else {
                var end = head
                while end < chunks.count && end - head < Self.gatherLimit && chunks[end].file == nil { end += 1 }
                // On the stack: an array here was an allocation per response.
                written = withUnsafeTemporaryAllocation(of: iovec.self, capacity: Self.gatherLimit) { vectors in
                    gather(from: head, to: end, into: vectors, count: 0, write)
                }
            }
            if written <= 0 { return written }
            advance(by: written)
        }
        chunks.removeAll(keepingCapacity: true)
        head = 0
        return 1
    }

    /// Pins chunks `index..<end` one inside the other, so all their storage stays valid for the one call.
    /// `vectors` holds `count` entries so far, and room for one per chunk.
    private func gather(
        from index: Int, to end: Int, into vectors: UnsafeMutableBufferPointer<iovec>, count: Int,
        _ write: (UnsafeBufferPointer<iovec>) -> Int
    ) -> Int {
        if index == end { return write(UnsafeBufferPointer(rebasing: vectors[..<count])) }
        let chunk = chunks[index]
        return chunk.bytes.withUnsafeBytes { raw in
            var count = count
            if chunk.offset < raw.count, let base = raw.baseAddress {
                vectors[count] = iovec(
                    iov_base: UnsafeMutableRawPointer(mutating: base + chunk.offset), iov_len: raw.count - chunk.offset)
                count += 1
            }
            return gather(from: index + 1, to: end, into: vectors, count: count, write)
        }
    }

    private mutating func advance(by count: Int) {
        var remaining = count
        var index = head
        while remaining > 0 && index < chunks.count {
            let left = chunks[index].length - chunks[index].offset
            let taken = min(left, remaining)
            chunks[index].offset += taken
            remaining -= taken
            index += 1
        }
    }

    private mutating func completeWrittenChunks() {
        while head < chunks.count && chunks[head].offset == chunks[head].length {
            let action = chunks[head].onWritten
            chunks[head] = Chunk(bytes: [])
            head += 1
            action?()
        }
    }

    mutating func removeAll() {
        chunks.removeAll()
        head = 0
    }
}
