/// One index row as read back: the entry, its body's checksum, and where the body lives.
struct IndexedVariant: Sendable {
    var entry: StoredEntry
    var crc: UInt32
    var isInline: Bool
    /// The inline body, when the query asked for it.
    var inlineBody: [UInt8]?
}
