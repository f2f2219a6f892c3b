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

    /// What the tier charges for this variant.
    var charge: Int { metadataCharge + (body?.count ?? 0) }

    mutating func updateEntry(_ update: (inout StoredEntry) -> Void) {
        update(&entry)
        metadataCharge = MemoryVariant.estimate(entry)
    }

    /// Roughly the heap this metadata takes: the strings plus per-object overhead.
    private static func estimate(_ entry: StoredEntry) -> Int {
        var bytes = 256 + entry.key.utf8.count + entry.variant.utf8.count + entry.url.utf8.count
        bytes += entry.route.utf8.count + entry.head.reason.utf8.count
        for field in entry.head.headers { bytes += 48 + field.name.utf8.count + field.value.utf8.count }
        for field in entry.varyRequestHeaders { bytes += 48 + field.name.utf8.count + field.value.utf8.count }
        return bytes
    }
}

extension MemoryVariant {
    /// The order `variants(forKey:)` promises: newest response first.
    static func newerFirst(_ lhs: MemoryVariant, _ rhs: MemoryVariant) -> Bool {
        lhs.entry.responseTime > rhs.entry.responseTime
    }
}
