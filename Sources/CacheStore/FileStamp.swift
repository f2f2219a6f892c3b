#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `fstat` says about a body file: enough to tell whether it changed since it was last verified.
struct FileStamp: Sendable, Equatable {
    var size: Int
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int
    var inode: UInt64

    /// Milliseconds since 1970, for comparing with the store's start.
    var modifiedMillis: Int64 { Int64(modifiedSeconds) * 1000 + Int64(modifiedNanoseconds / 1_000_000) }
}

extension FileStamp {
    init(_ info: stat) {
        #if canImport(Darwin)
            let modified = info.st_mtimespec
        #else
            let modified = info.st_mtim
        #endif
        self.init(
            size: Int(info.st_size), modifiedSeconds: Int(modified.tv_sec), modifiedNanoseconds: Int(modified.tv_nsec),
            inode: UInt64(info.st_ino))
    }
}
