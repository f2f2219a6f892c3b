import HTTPWire

/// What values really take on the heap, for the memory tier's charge. The tier's budget is the process's memory
/// budget, so guessing low lets the resident set outgrow it: a 1 KiB miss-workload entry takes about 2.3 KiB of
/// heap, and a flat per-field guess undercharged it by ~10 %.
///
/// The model is glibc's malloc (an 8-byte chunk header, 16-byte rounding, 32 bytes at least) under Swift's layouts:
/// a native string or array is one block holding a 32-byte object header and the elements; strings of up to 15
/// UTF-8 bytes sit inline in the value and take no block.
enum HeapSize {
    /// The chunk malloc carves for a request of `bytes`.
    static func block(_ bytes: Int) -> Int {
        max(32, (bytes + 8 + 15) & ~15)
    }

    static let objectHeader = 32
    static let smallStringMax = 15

    static func string(_ value: String) -> Int {
        let count = value.utf8.count
        // A heap string also keeps a NUL after its bytes.
        return count <= smallStringMax ? 0 : block(objectHeader + count + 1)
    }

    /// An array's buffer; an empty array shares a static one.
    static func array<Element>(of _: Element.Type, count: Int) -> Int {
        count == 0 ? 0 : block(objectHeader + count * MemoryLayout<Element>.stride)
    }

    static func bytes(_ value: [UInt8]) -> Int {
        value.isEmpty ? 0 : block(objectHeader + value.capacity)
    }

    static func headers(_ headers: HTTPHeaders) -> Int {
        headers.reduce(array(of: HTTPField.self, count: headers.count)) { $0 + string($1.name) + string($1.value) }
    }
}
