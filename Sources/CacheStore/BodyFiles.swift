/// The cache directory's layout, and the writes a commit makes there, each open to fault injection.
///
/// ```
/// CACHE_DIR/index.sqlite          the index (WAL: -wal, -shm beside it)
/// CACHE_DIR/lock                  held with flock by the one store using the directory
/// CACHE_DIR/tmp/<body id>         bodies being written; anything here at start-up is a leftover
/// CACHE_DIR/bodies/xx/<body id>   committed bodies, 16 hex digits, bucketed by the id's low byte
/// CACHE_DIR/trash-<random>/       a bodies directory `removeAll` set aside, being deleted
/// ```
struct BodyFiles: Sendable {
    let root: String
    let faults: FaultInjection

    var indexPath: String { root + "/index.sqlite" }
    var lockPath: String { root + "/lock" }
    var tempDirectory: String { root + "/tmp" }
    var bodiesDirectory: String { root + "/bodies" }

    func bucketDirectory(for bodyID: UInt64) -> String {
        bodiesDirectory + "/" + BodyFiles.hex(bodyID & 0xFF, digits: 2)
    }

    func path(for bodyID: UInt64) -> String {
        bucketDirectory(for: bodyID) + "/" + BodyFiles.hex(bodyID, digits: 16)
    }

    /// Where `removeAll` moves the bodies directory before deleting it.
    func newTrashPath() -> String {
        root + "/" + BodyFiles.trashPrefix + BodyFiles.hex(UInt64.random(in: 1...UInt64.max), digits: 16)
    }

    static let trashPrefix = "trash-"

    /// Where the body `bodyID` is written until it commits; ids never repeat within a run, and `tmp/` is emptied
    /// at start-up, so no two writers share a temp file.
    func tempPath(for bodyID: UInt64) -> String {
        tempDirectory + "/" + BodyFiles.hex(bodyID, digits: 16)
    }

    /// The body id a file in a bucket is named after, or nil for a stray name.
    static func bodyID(fileName: String) -> UInt64? {
        guard fileName.utf8.count == 16 else { return nil }
        return UInt64(fileName, radix: 16)
    }

    static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    // MARK: Writes a commit makes

    func createTemp(_ path: String) throws -> Int32 {
        try faults.check("create", path)
        return try FileSystem.createExclusive(path)
    }

    func write(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws {
        try faults.check("write", path)
        try bytes.withUnsafeBytes { try FileSystem.writeAll(descriptor, $0, path: path) }
    }

    func sync(_ descriptor: Int32, path: String) throws {
        try faults.check("fsync", path)
        try FileSystem.sync(descriptor, path: path)
    }

    /// Renames a finished temp file to its final name; returns the bucket directory, whose entry must be synced.
    func moveIntoPlace(_ tempPath: String, bodyID: UInt64) throws -> String {
        let bucket = bucketDirectory(for: bodyID)
        try faults.check("rename", tempPath)
        try FileSystem.makeDirectory(bucket)
        try FileSystem.move(tempPath, to: path(for: bodyID))
        return bucket
    }
}
