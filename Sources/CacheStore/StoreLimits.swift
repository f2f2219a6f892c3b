/// The bounds the store keeps to.
public struct StoreLimits: Sendable, Equatable {
    /// The memory tier's budget: bodies plus an estimate of their metadata.
    public var memoryMaxBytes: Int
    /// The disk tier's budget: body files (rounded up to 4 KiB blocks), inline bodies and index rows.
    public var diskMaxBytes: Int
    /// A larger body is never stored.
    public var maxObjectSize: Int
    /// Bodies up to this size live inline in the SQLite row instead of in a file of their own.
    public var inlineMaxBytes: Int
    /// After a write error (a full disk, usually), storing stays off this many seconds before it is tried again.
    public var pauseAfterWriteError: Int64

    public init(
        memoryMaxBytes: Int,
        diskMaxBytes: Int,
        maxObjectSize: Int,
        inlineMaxBytes: Int = 16 * 1024,
        pauseAfterWriteError: Int64 = 30
    ) {
        self.memoryMaxBytes = max(0, memoryMaxBytes)
        self.diskMaxBytes = max(0, diskMaxBytes)
        self.maxObjectSize = max(0, maxObjectSize)
        self.inlineMaxBytes = max(0, inlineMaxBytes)
        self.pauseAfterWriteError = max(0, pauseAfterWriteError)
    }

    /// The largest body the memory tier holds: small enough that one object cannot flush the whole tier.
    public var memoryBodyMaxBytes: Int { min(1 << 20, memoryMaxBytes / 8) }

    /// The largest body a writer accepts; one object may not outgrow the whole disk budget.
    var storableMaxBytes: Int { min(maxObjectSize, diskMaxBytes) }
}
