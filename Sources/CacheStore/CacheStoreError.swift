/// Why a store could not open.
public enum CacheStoreError: Error, Equatable, CustomStringConvertible {
    /// Another store (in this process or another) holds the directory's lock.
    case directoryInUse(path: String)
    /// The directory, its files or the index could not be created or opened.
    case cannotOpen(path: String, reason: String)

    public var description: String {
        switch self {
        case .directoryInUse(let path): "cache directory \(path) is in use by another Larder"
        case .cannotOpen(let path, let reason): "cannot open cache at \(path): \(reason)"
        }
    }
}
