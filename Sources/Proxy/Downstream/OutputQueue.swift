/// Bytes waiting for a client socket to accept them, in order. Each chunk may carry an action to
/// run once it is fully written (flow control for the producer of the bytes).
struct OutputQueue {
    struct Chunk {
        var bytes: [UInt8]
        var offset = 0
        var onWritten: (() -> Void)?
    }

    private var chunks: [Chunk] = []
    private var head = 0
    private(set) var byteCount = 0

    var isEmpty: Bool { head == chunks.count }

    mutating func append(_ bytes: [UInt8], onWritten: (() -> Void)? = nil) {
        guard !bytes.isEmpty else {
            if let onWritten {
                chunks.append(Chunk(bytes: [], onWritten: onWritten))
            }
            return
        }
        chunks.append(Chunk(bytes: bytes, onWritten: onWritten))
        byteCount += bytes.count
    }

    /// Calls `write` with the unwritten bytes of the first chunk until it reports 0 or less
    /// (would block / error); returns that result, or 1 when everything was written.
    /// Completed chunks' actions run after their bytes left.
    mutating func drain(_ write: (UnsafeRawBufferPointer) -> Int) -> Int {
        while head < chunks.count {
            if chunks[head].offset == chunks[head].bytes.count {
                let action = chunks[head].onWritten
                chunks[head] = Chunk(bytes: [])
                head += 1
                action?()
                continue
            }
            let written = chunks[head].bytes.withUnsafeBytes { raw in
                write(UnsafeRawBufferPointer(rebasing: raw[chunks[head].offset...]))
            }
            if written <= 0 { return written }
            chunks[head].offset += written
            byteCount -= written
        }
        chunks.removeAll(keepingCapacity: true)
        head = 0
        return 1
    }

    mutating func removeAll() {
        chunks.removeAll()
        head = 0
        byteCount = 0
    }
}
