import Dispatch
import GRDB
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension CacheStore {
    /// All stored variants of `key`, newest first. From the memory tier when it holds the key (no SQLite, no
    /// disk); nothing when the key set knows the key is not stored; else one indexed SQLite query, whose result
    /// the tier then keeps.
    public func variants(forKey key: String) -> [StoredEntry] {
        if let held = memory.variants(forKey: key) { return held.map(\.entry) }
        guard storedKeys.mayHold(key) else { return [] }
        let generation = memory.generation
        let rows: [IndexedVariant]
        do {
            rows = try pool.readOneStatement { try StoreIndex.variants($0, key: key, withInlineBodies: true) }
        } catch {
            logger.error("cache index read failed", metadata: ["key": "\(key)", "error": "\(error)"])
            return []
        }
        guard !rows.isEmpty else { return [] }
        memory.fill(key: key, variants: rows.map(memoryVariant), ifUnchangedSince: generation)
        return rows.map(\.entry)
    }

    /// The body of `entry`, verified; nil (a miss) when the entry was replaced or removed since it was read, or
    /// when its body is missing or damaged, in which case the entry is removed and that is logged once.
    ///
    /// Inline bodies and small files are checked in full (size, CRC-32) each time they are loaded into memory.
    /// A large file's size is checked on every call, its checksum when the file's (size, mtime, inode) differ
    /// from what this process last verified.
    public func body(of entry: StoredEntry) -> StoredBody? {
        guard entry.bodyID != 0 else { return nil }
        let stored: MemoryVariant
        switch memory.lookup(key: entry.key, variant: entry.variant) {
        case .held(let held) where held.entry.bodyID == entry.bodyID && held.body != nil:
            recordAccess(entry)
            return held.body.map(StoredBody.bytes)
        case .held(let held) where !held.isInline:
            stored = held
        case .notStored:
            return nil
        case .held, .keyNotHeld:
            // An inline body the tier does not hold comes with its row.
            do {
                guard
                    let row = try pool.readOneStatement({
                        try StoreIndex.variant($0, key: entry.key, variant: entry.variant)
                    })
                else { return nil }
                stored = MemoryVariant(entry: row.entry, crc: row.crc, isInline: row.isInline, body: row.inlineBody)
            } catch {
                logger.error("cache index read failed", metadata: ["key": "\(entry.key)", "error": "\(error)"])
                return nil
            }
        }
        // A newer response replaced the one `entry` describes: its head would not fit this body.
        guard stored.entry.bodyID == entry.bodyID else { return nil }
        recordAccess(entry)
        if stored.isInline {
            guard let body = stored.body, body.count == stored.entry.bodySize, CRC32.checksum(body) == stored.crc
            else {
                discard(stored.entry, because: "inline body does not match its size or checksum")
                return nil
            }
            keepInMemory(body, of: stored.entry)
            return .bytes(body)
        }
        return loadFile(of: stored)
    }

    /// Entries whose URL starts with `urlPrefix` (all when nil), by URL, for `larder ls`.
    public func entries(urlPrefix: String?, limit: Int) -> [StoredEntry] {
        do {
            return try pool.read { try StoreIndex.entries($0, urlPrefix: urlPrefix, limit: max(0, limit)) }
        } catch {
            logger.error("cache index read failed", metadata: ["error": "\(error)"])
            return []
        }
    }

    private func loadFile(of stored: MemoryVariant) -> StoredBody? {
        let entry = stored.entry
        let path = files.path(for: entry.bodyID)
        let descriptor: Int32
        switch FileSystem.openForReading(path) {
        case .success(let opened):
            descriptor = opened
        case .failure(let error) where error.code == ENOENT:
            discard(entry, because: "body file is missing")
            return nil
        case .failure(let error):
            // Not the entry's fault (e.g. out of descriptors): a miss, and the entry stays.
            logger.warning("cache body could not be opened", metadata: ["error": "\(error)"])
            return nil
        }
        guard let stamp = FileSystem.stamp(descriptor), stamp.size == entry.bodySize else {
            close(descriptor)
            discard(entry, because: "body file does not have \(entry.bodySize) bytes")
            return nil
        }
        if entry.bodySize <= limits.memoryBodyMaxBytes {
            let bytes = FileSystem.read(descriptor, size: entry.bodySize)
            close(descriptor)
            guard let bytes, CRC32.checksum(bytes) == stored.crc else {
                discard(entry, because: "body file does not match its checksum")
                return nil
            }
            keepInMemory(bytes, of: entry)
            return .bytes(bytes)
        }
        if verifiedFiles.withLock({ $0[entry.bodyID] }) != stamp {
            guard FileSystem.checksum(descriptor, size: entry.bodySize) == stored.crc else {
                close(descriptor)
                discard(entry, because: "body file does not match its checksum")
                return nil
            }
            verifiedFiles.withLock { $0[entry.bodyID] = stamp }
        }
        return .file(path: path, size: entry.bodySize, descriptor: descriptor)
    }

    private func keepInMemory(_ body: [UInt8], of entry: StoredEntry) {
        guard body.count <= limits.memoryBodyMaxBytes else { return }
        memory.attach(body: body, key: entry.key, variant: entry.variant, bodyID: entry.bodyID)
    }

    /// Removes an entry whose body failed verification, if it still holds that body; logs only when it did
    /// (two readers finding the same damage log once).
    private func discard(_ entry: StoredEntry, because reason: String) {
        let removed = removeRows(.body(key: entry.key, variant: entry.variant, bodyID: entry.bodyID))
        if removed > 0 {
            logger.warning(
                "cache entry removed: its body failed verification",
                metadata: ["key": "\(entry.key)", "variant": "\(entry.variant)", "reason": "\(reason)"])
        }
    }

    /// The tier's form of an index row; an inline body comes along when it is small and verifies.
    func memoryVariant(_ row: IndexedVariant) -> MemoryVariant {
        var body: [UInt8]?
        if let inline = row.inlineBody, inline.count <= limits.memoryBodyMaxBytes,
            inline.count == row.entry.bodySize, CRC32.checksum(inline) == row.crc
        {
            body = inline
        }
        return MemoryVariant(entry: row.entry, crc: row.crc, isInline: row.isInline, body: body)
    }

    /// Notes a hit for least-recently-used eviction; written to the index in batches, not per hit.
    func recordAccess(_ entry: StoredEntry) {
        let time = accessClock.next()
        let write = accesses.withLock { log -> AccessLog.Write in
            log.times[VariantRef(key: entry.key, variant: entry.variant)] = time
            if log.times.count >= AccessLog.maxHeld { return .now }
            if log.drainScheduled { return .withNextBatch }
            log.drainScheduled = true
            return .later
        }
        switch write {
        case .withNextBatch: break
        case .now: writerQueue.async { self.drain() }
        case .later: writerQueue.asyncAfter(deadline: .now() + AccessLog.delay) { [weak self] in self?.drain() }
        }
    }
}
