/// An index row a transaction deleted: which memory-tier key to drop and which body file to unlink.
struct RemovedRow: Sendable {
    var key: String
    var bodyID: UInt64
    var hasFile: Bool
}
