#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few POSIX calls the store makes, with errors turned into `StoreIOError`.
/// Files are created 0600 and directories 0700, whatever the umask.
enum FileSystem {
    static let fileMode: mode_t = 0o600
    static let directoryMode: mode_t = 0o700

    /// Creates `path` and any missing parents, each 0700; an existing directory is left as it is.
    static func makeDirectories(_ path: String) throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, directoryMode) != 0 && errno != EEXIST {
                throw StoreIOError(operation: "mkdir", path: prefix, code: errno)
            }
        }
    }

    static func makeDirectory(_ path: String) throws {
        if mkdir(path, directoryMode) != 0 && errno != EEXIST {
            throw StoreIOError(operation: "mkdir", path: path, code: errno)
        }
    }

    /// Opens a new file for writing; fails if it exists.
    static func createExclusive(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        guard descriptor >= 0 else { throw StoreIOError(operation: "create", path: path, code: errno) }
        return descriptor
    }

    /// Creates an empty file 0600 unless one exists (SQLite then gives its WAL and SHM files the same mode).
    static func createIfMissing(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, fileMode)
        guard descriptor >= 0 else { throw StoreIOError(operation: "create", path: path, code: errno) }
        close(descriptor)
    }

    static func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws {
        guard var base = buffer.baseAddress else { return }
        var remaining = buffer.count
        while remaining > 0 {
            let written = write(descriptor, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                throw StoreIOError(operation: "write", path: path, code: errno)
            }
            if written == 0 { throw StoreIOError(operation: "write", path: path, code: EIO) }
            base += written
            remaining -= written
        }
    }

    static func sync(_ descriptor: Int32, path: String) throws {
        if fsync(descriptor) != 0 { throw StoreIOError(operation: "fsync", path: path, code: errno) }
    }

    /// Makes a rename in `path` durable.
    static func syncDirectory(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreIOError(operation: "open", path: path, code: errno) }
        defer { close(descriptor) }
        try sync(descriptor, path: path)
    }

    static func move(_ source: String, to destination: String) throws {
        if rename(source, destination) != 0 {
            throw StoreIOError(operation: "rename", path: source, code: errno)
        }
    }

    /// Best effort: a file already gone is what the caller wanted.
    static func remove(_ path: String) {
        unlink(path)
    }

    /// A read-only descriptor, or the errno of the failed `open`.
    static func openForReading(_ path: String) -> Result<Int32, StoreIOError> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(StoreIOError(operation: "open", path: path, code: errno)) }
        return .success(descriptor)
    }

    static func stamp(_ descriptor: Int32) -> FileStamp? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return FileStamp(info)
    }

    static func stamp(path: String) -> FileStamp? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return FileStamp(info)
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The first `size` bytes, or nil when the file is shorter or unreadable.
    static func read(_ descriptor: Int32, size: Int) -> [UInt8]? {
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var offset = 0
            while offset < size {
                // ! : inside the loop size > 0, so the buffer has a base address.
                let count = pread(descriptor, buffer.baseAddress! + offset, size - offset, off_t(offset))
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    failed = true
                    break
                }
                offset += count
            }
            initialized = failed ? 0 : size
        }
        return failed ? nil : bytes
    }

    /// The CRC-32 of the first `size` bytes, read with `pread` so the descriptor stays at offset 0;
    /// nil when the file is shorter or unreadable.
    static func checksum(_ descriptor: Int32, size: Int) -> UInt32? {
        let chunk = 256 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var crc = CRC32()
        var offset = 0
        while offset < size {
            let count = pread(descriptor, buffer.baseAddress, min(chunk, size - offset), off_t(offset))
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return nil }
            crc.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            offset += count
        }
        return crc.value
    }

    /// The names in a directory, without `.` and `..`; empty when it cannot be read.
    static func list(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Deletes `path` and everything inside it.
    static func removeTree(_ path: String) {
        removeContents(of: path)
        rmdir(path)
    }

    /// Deletes everything inside `path`, keeping `path` itself; returns how many files went.
    @discardableResult
    static func removeContents(of path: String) -> Int {
        var removed = 0
        for name in list(path) {
            let child = path + "/" + name
            if isDirectory(child) {
                removed += removeContents(of: child)
                rmdir(child)
            } else if unlink(child) == 0 {
                removed += 1
            }
        }
        return removed
    }
}
