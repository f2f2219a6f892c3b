/// Why the queue could not open or keep a request.
public enum ReplayQueueError: Error, Equatable, CustomStringConvertible {
    /// The state file or its directory could not be created, or the database not opened.
    case cannotOpen(path: String, reason: String)
    /// The body is over `QueueSettings.maxBodySize`.
    case bodyTooLarge(bytes: Int, limit: Int)
    /// SQLite refused the write (disk full, I/O error): the request is not queued.
    case storageFailed(reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the replay queue at \(path): \(reason)"
        case .bodyTooLarge(let bytes, let limit): "a \(bytes)-byte body is over the queue's limit of \(limit) bytes"
        case .storageFailed(let reason): "cannot write the replay queue: \(reason)"
        }
    }
}
