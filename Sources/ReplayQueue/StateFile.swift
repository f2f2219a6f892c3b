#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Creates the queue's SQLite file before SQLite opens it, so that it is private from its first byte: directories
/// 0700, the file 0600 (SQLite gives the `-wal` and `-shm` files the database file's mode).
enum StateFile {
    static func prepare(_ path: String) throws(ReplayQueueError) {
        var directory = ""
        let components = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        for (index, component) in components.enumerated() {
            directory += index == 0 ? String(component) : "/" + component
            if directory.isEmpty || component.isEmpty { continue }
            if mkdir(directory, 0o700) != 0 && errno != EEXIST {
                throw .cannotOpen(path: path, reason: "cannot create \(directory): \(String(cString: strerror(errno)))")
            }
        }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        // An older file keeps its contents but not a wider mode: it holds request bodies and credentials.
        _ = fchmod(descriptor, 0o600)
        close(descriptor)
    }
}
