/// A verified body, ready to send.
public enum StoredBody: Sendable {
    /// From the memory tier, inline in SQLite, or a small file read and verified whole.
    case bytes([UInt8])
    /// A large body: an open read-only descriptor positioned at 0, for `sendfile`. The caller closes it.
    /// The file was verified (size always, checksum when it changed since this process last checked it).
    case file(path: String, size: Int, descriptor: Int32)
}
