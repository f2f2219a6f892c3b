/// A finished body on its way into the index, handed from a `CacheWriter` to the store's writer queue.
///
/// A class: a batch passes each job through several lists (its keys, the rows to insert, the committed ones), and
/// copies of a struct holding a whole `StoredEntry` retained and released every one of its fields each time.
final class CommitJob: Sendable {
    /// Where the finished body is now.
    enum Body: Sendable {
        case inline([UInt8])
        /// Written and synced; renamed to its final name by the writer queue just before the row commits. `stamp`
        /// is the file as written, whose bytes `crc` was computed from: reads in this process need not check it
        /// again while the file keeps that stamp.
        case file(tempPath: String, stamp: FileStamp?)
    }

    /// With its final `bodySize` and `bodyID`.
    let entry: StoredEntry
    let body: Body
    let crc: UInt32
    /// The body again, when it is small enough for the memory tier.
    let memoryCopy: [UInt8]?
    let completion: (@Sendable (Bool) -> Void)?
    /// The memory tier took this variant ahead of the index write (`CacheStore.publishAhead`).
    let isPublished: Bool

    init(
        entry: StoredEntry, body: Body, crc: UInt32, memoryCopy: [UInt8]?, isPublished: Bool = false,
        completion: (@Sendable (Bool) -> Void)?
    ) {
        self.entry = entry
        self.body = body
        self.crc = crc
        self.memoryCopy = memoryCopy
        self.isPublished = isPublished
        self.completion = completion
    }

    var isInline: Bool {
        if case .inline = body { return true }
        return false
    }
}
