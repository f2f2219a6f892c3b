/// One variant as the memory tier holds it: its metadata always, its body when small enough.
struct MemoryVariant: Sendable {
    var entry: StoredEntry
    /// The checksum stored at commit, for verifying the body when it is read from disk.
    var crc: UInt32
    /// True when the body lives in the index row, false when in a file of its own.
    var isInline: Bool
    /// The verified body, when the tier holds it.
    var body: [UInt8]?
    private(set) var metadataCharge: Int

    init(entry: StoredEntry, crc: UInt32, isInline: Bool, body: [UInt8]?) {
        self.entry = entry
        self.crc = crc
        self.isInline = isInline
        self.body = body
        self.metadataCharge = MemoryVariant.estimate(entry)
    }

    /// What the tier charges for this variant: its metadata's heap and its body's buffer. The variant's own slot is
    /// in its key's variant array, which `MemoryTier` charges.
    var charge: Int { metadataCharge + (body.map(HeapSize.bytes) ?? 0) }

    mutating func updateEntry(_ update: (inout StoredEntry) -> Void) {
        update(&entry)
        metadataCharge = MemoryVariant.estimate(entry)
    }

    /// The heap blocks of the entry's strings and header arrays. `key` is not counted: the tier files the key under
    /// this very string (one shared buffer) and charges it once per key.
    static func estimate(_ entry: StoredEntry) -> Int {
        HeapSize.string(entry.variant) + HeapSize.string(entry.url) + HeapSize.string(entry.route)
            + HeapSize.string(entry.head.reason) + HeapSize.headers(entry.head.headers)
            + HeapSize.headers(entry.varyRequestHeaders)
    }
}

extension MemoryVariant {
    /// The order `variants(forKey:)` promises: newest response first.
    static func newerFirst(_ lhs: MemoryVariant, _ rhs: MemoryVariant) -> Bool {
        lhs.entry.responseTime > rhs.entry.responseTime
    }
}
