/// Counts for `GET /_larder/stats` and the tests.
public struct CacheStats: Sendable, Equatable {
    /// Variants whose metadata (and, when small, body) the memory tier holds.
    public var memoryEntries: Int
    /// What the memory tier charges for them: bodies plus a metadata estimate.
    public var memoryBytes: Int
    public var diskEntries: Int
    /// Body files (rounded up to 4 KiB blocks), inline bodies and index rows.
    public var diskBytes: Int
    /// Entries dropped from the disk tier to keep it within `diskMaxBytes` (they are gone from the cache).
    public var evictions: Int
    /// Keys the memory tier let go to stay within `memoryMaxBytes` (they remain on disk).
    public var memoryEvictions: Int
    /// Commits that failed on a write error (a full disk, usually).
    public var writeFailures: Int

    public init(
        memoryEntries: Int = 0,
        memoryBytes: Int = 0,
        diskEntries: Int = 0,
        diskBytes: Int = 0,
        evictions: Int = 0,
        memoryEvictions: Int = 0,
        writeFailures: Int = 0
    ) {
        self.memoryEntries = memoryEntries
        self.memoryBytes = memoryBytes
        self.diskEntries = diskEntries
        self.diskBytes = diskBytes
        self.evictions = evictions
        self.memoryEvictions = memoryEvictions
        self.writeFailures = writeFailures
    }
}
