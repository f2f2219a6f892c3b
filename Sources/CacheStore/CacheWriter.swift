import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Receives a body as it streams to the client and commits it to the store when the body is whole.
///
/// Confinement: the caller-side state (`phase`, `buffer`, `total`, `keepsCopy`, making `fileQueue`) is used by one
/// caller queue at a time (not thread-safe itself); the file state (`descriptor`, `crc`, `writeError`) only on
/// `fileQueue`.
/// `append` stays cheap: up to `inlineMaxBytes` the body is buffered, beyond that it is written to a temp file
/// on `fileQueue`, in order, while the caller goes on.
public final class CacheWriter: @unchecked Sendable {
    private enum Phase {
        /// The whole body so far is in `buffer`.
        case buffering
        /// The body goes to the temp file.
        case spilling
        /// Nothing will be stored.
        case abandoned
        case committed
    }

    /// Bytes handed to `fileQueue` but not yet written; past this the disk is too slow to keep up, and the
    /// writer gives up rather than hold the body in memory.
    static let maxBacklog = 8 << 20

    private let store: CacheStore
    private var entry: StoredEntry
    private let expectedSize: Int?
    private let bodyID: UInt64
    /// Computed, not kept: most bodies are small and never spill, so the path is not worth a string per writer.
    private var tempPath: String { store.files.tempPath(for: bodyID) }
    /// Made when the body first spills: most bodies on the miss path are small, and never need it.
    private lazy var fileQueue = DispatchQueue(label: "larder.store.body", target: store.bodyQueue)

    // Caller side.
    private var phase = Phase.buffering
    /// The body while buffering; after spilling, a copy for the memory tier while the body may still fit it.
    private var buffer: [UInt8] = []
    private var keepsCopy = false
    private var total = 0

    // Shared.
    private let backlog = Atomic(0)
    private let fileFailed = Atomic(false)

    // On `fileQueue`.
    private var descriptor: Int32 = -1
    private var crc = CRC32()
    private var writeError: (any Error)?

    init(store: CacheStore, entry: StoredEntry, expectedSize: Int?) {
        self.store = store
        self.entry = entry
        self.expectedSize = expectedSize
        self.bodyID = store.bodyIDs.next()
    }

    deinit {
        // Every queued file operation holds `self`, so none is pending here.
        if case .spilling = phase {
            if descriptor >= 0 { close(descriptor) }
            FileSystem.remove(tempPath)
        }
    }

    /// Takes the next piece of the body. `onWritten` (on any thread) says when the writer is done with it: at once
    /// when it is buffered in memory or not stored, else once it is in the temp file. A caller that waits for it
    /// before taking more paces the body to the disk, so the writer never has to drop a body for falling behind.
    public func append(_ bytes: [UInt8], onWritten: (@Sendable () -> Void)? = nil) {
        guard !bytes.isEmpty else {
            onWritten?()
            return
        }
        switch phase {
        case .buffering, .spilling: break
        case .abandoned, .committed:
            onWritten?()
            return
        }
        total += bytes.count
        if let expectedSize, total > expectedSize {
            abandon()
            onWritten?()
            return
        }
        if total > store.limits.storableMaxBytes {
            abandon()
            onWritten?()
            return
        }
        let memoryMax = store.limits.memoryBodyMaxBytes
        if case .buffering = phase {
            if buffer.isEmpty {
                // Kept as it is, not copied: most small bodies come in one piece.
                buffer = bytes
            } else {
                if let expectedSize, expectedSize <= memoryMax { buffer.reserveCapacity(expectedSize) }
                buffer.append(contentsOf: bytes)
            }
            guard total > store.limits.inlineMaxBytes else {
                onWritten?()
                return
            }
            phase = .spilling
            let first = buffer
            keepsCopy = total <= memoryMax
            if !keepsCopy { buffer = [] }
            writeToFile(first, onWritten: onWritten)
            return
        }
        if keepsCopy {
            if total <= memoryMax {
                buffer.append(contentsOf: bytes)
            } else {
                keepsCopy = false
                buffer = []
            }
        }
        if fileFailed.load(ordering: .relaxed) {
            abandon()
            onWritten?()
            return
        }
        writeToFile(bytes, onWritten: onWritten)
    }

    /// Commits the body if it is whole (`expectedSize`, when given, matches) and every write worked; the
    /// completion (on the store's completion queue) says whether it was stored. A committed body is durable: its
    /// file synced and renamed into place before its index row commits, replacing any older row for the same key
    /// and variant (whose old body file is then deleted). Small bodies also go to the memory tier.
    ///
    /// `onVisible` runs once, as soon as a lookup finds the new body: before `commit` returns when the body is
    /// small and the memory tier takes it ahead of the index write (the common case on the miss path, so requests
    /// waiting for this body do not wait for the batch), else just before the completion, stored or not.
    public func commit(
        completion: (@Sendable (Bool) -> Void)? = nil, onVisible: (@Sendable () -> Void)? = nil
    ) {
        store.writesInFlight.enter()
        let reportLater: (@Sendable (Bool) -> Void)? =
            onVisible == nil
            ? completion
            : { @Sendable stored in
                onVisible?()
                completion?(stored)
            }
        switch phase {
        case .buffering, .spilling: break
        case .abandoned, .committed:
            store.complete(reportLater, stored: false)
            return
        }
        if let expectedSize, total != expectedSize {
            abandon()
            store.complete(reportLater, stored: false)
            return
        }
        entry.bodySize = total
        entry.bodyID = bodyID
        let memoryMax = store.limits.memoryBodyMaxBytes
        if case .buffering = phase {
            phase = .committed
            let body = buffer
            buffer = []
            let crc = CRC32.checksum(body)
            let memoryCopy = body.count <= memoryMax ? body : nil
            let visible = store.publishAhead(entry, crc: crc, isInline: true, memoryCopy: memoryCopy)
            store.enqueue(
                .commit(
                    CommitJob(
                        entry: entry, body: .inline(body), crc: crc, memoryCopy: memoryCopy, isPublished: visible,
                        completion: visible ? completion : reportLater)))
            if visible { onVisible?() }
            return
        }
        phase = .committed
        let copy = keepsCopy ? buffer : nil
        buffer = []
        let entry = entry
        fileQueue.async { self.finishFile(entry: entry, memoryCopy: copy, completion: reportLater) }
    }

    /// Drops the body; nothing is stored and the temp file goes.
    public func discard() {
        switch phase {
        case .buffering, .spilling: abandon()
        case .abandoned, .committed: break
        }
    }

    private func abandon() {
        let spilled = if case .spilling = phase { true } else { false }
        phase = .abandoned
        buffer = []
        guard spilled else { return }
        store.writesInFlight.enter()
        fileQueue.async {
            self.removeTempFile()
            self.store.writesInFlight.leave()
        }
    }

    private func writeToFile(_ chunk: [UInt8], onWritten: (@Sendable () -> Void)?) {
        let queued = backlog.add(chunk.count, ordering: .relaxed).newValue
        // One chunk alone is always taken; the limit is on chunks piling up behind it (a caller not waiting
        // for `onWritten`).
        if queued > CacheWriter.maxBacklog && queued > chunk.count {
            backlog.subtract(chunk.count, ordering: .relaxed)
            store.logger.debug("cache body dropped: the disk falls behind", metadata: ["key": "\(entry.key)"])
            abandon()
            onWritten?()
            return
        }
        fileQueue.async {
            self.write(chunk)
            onWritten?()
        }
    }

    // MARK: On fileQueue

    private func write(_ chunk: [UInt8]) {
        backlog.subtract(chunk.count, ordering: .relaxed)
        guard writeError == nil else { return }
        do {
            if descriptor < 0 { descriptor = try store.files.createTemp(tempPath) }
            try store.files.write(descriptor, chunk, path: tempPath)
            crc.update(chunk)
        } catch {
            writeError = error
            fileFailed.store(true, ordering: .relaxed)
            store.recordWriteFailure(error)
        }
    }

    private func finishFile(entry: StoredEntry, memoryCopy: [UInt8]?, completion: (@Sendable (Bool) -> Void)?) {
        guard writeError == nil else {
            removeTempFile()
            store.complete(completion, stored: false)
            return
        }
        do {
            try store.files.sync(descriptor, path: tempPath)
        } catch {
            store.recordWriteFailure(error)
            removeTempFile()
            store.complete(completion, stored: false)
            return
        }
        let stamp = FileSystem.stamp(descriptor)
        close(descriptor)
        descriptor = -1
        store.enqueue(
            .commit(
                CommitJob(
                    entry: entry, body: .file(tempPath: tempPath, stamp: stamp), crc: crc.value,
                    memoryCopy: memoryCopy, completion: completion)))
    }

    private func removeTempFile() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        FileSystem.remove(tempPath)
    }
}
