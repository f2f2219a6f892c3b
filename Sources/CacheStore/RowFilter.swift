/// Which index rows a removal deletes.
enum RowFilter: Sendable {
    case key(String)
    case url(String)
    case route(String)
    case variant(key: String, variant: String)
    /// One variant, and only while it still holds this body (a newer commit may have replaced it).
    case body(key: String, variant: String, bodyID: UInt64)
}
