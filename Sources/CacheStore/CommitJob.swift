/// A finished body on its way into the index, handed from a `CacheWriter` to the store's writer queue.
struct CommitJob: Sendable {
    /// Where the finished body is now.
    enum Body: Sendable {
        case inline([UInt8])
        /// Written and synced; renamed to its final name by the writer queue just before the row commits. `stamp`
        /// is the file as written, whose bytes `crc` was computed from: reads in this process need not check it
        /// again while the file keeps that stamp.
        case file(tempPath: String, stamp: FileStamp?)
    }

    /// With its final `bodySize` and `bodyID`.
    var entry: StoredEntry
    var body: Body
    var crc: UInt32
    /// The body again, when it is small enough for the memory tier.
    var memoryCopy: [UInt8]?
    var completion: (@Sendable (Bool) -> Void)?

    var isInline: Bool {
        if case .inline = body { return true }
        return false
    }
}
