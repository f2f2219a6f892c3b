#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call on a cache file, with the errno it returned.
struct StoreIOError: Error, CustomStringConvertible {
    var operation: String
    var path: String
    var code: Int32

    var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }

    var isOutOfSpace: Bool { code == ENOSPC || code == EDQUOT }
}
