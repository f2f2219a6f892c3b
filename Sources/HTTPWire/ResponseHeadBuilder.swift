/// Writes a response head straight into bytes: the status line, fields in the order they are added, then the empty
/// line. For a head assembled from a stored one plus a few fields of the moment (a cache hit), this replaces copying
/// the stored `ResponseHead`, editing its fields one look-up at a time and serializing the result.
///
/// Values are sanitized as `serialized()` does: NUL, CR and LF become spaces, so no value can end a line early.
public struct ResponseHeadBuilder: Sendable {
    public private(set) var bytes: [UInt8]

    /// Starts with the status line of `head`, with room for its fields and `extraCapacity` bytes more.
    public init(statusLineOf head: ResponseHead, extraCapacity: Int) {
        bytes = []
        bytes.reserveCapacity(16 + head.reason.utf8.count + head.headers.serializedSizeEstimate + extraCapacity)
        head.version.append(to: &bytes)
        bytes.append(HTTPSyntax.space)
        HTTPSyntax.appendDecimal(head.status, to: &bytes)
        bytes.append(HTTPSyntax.space)
        HTTPHeaders.appendSanitized(head.reason, to: &bytes)
        bytes.append(HTTPSyntax.cr)
        bytes.append(HTTPSyntax.lf)
    }

    /// Starts with `prefix`, a status line and fields written earlier by a builder (`prefix(of:skipping:)`), with
    /// room for `extraCapacity` bytes more.
    public init(prefix: [UInt8], extraCapacity: Int) {
        bytes = []
        bytes.reserveCapacity(prefix.count + extraCapacity)
        bytes.append(contentsOf: prefix)
    }

    /// The status line of `head` and its fields but those `skip` names, unfinished: what `init(prefix:)` starts
    /// from, for a head written many times over (a stored response, on every hit).
    public static func prefix(of head: ResponseHead, skipping skip: (String) -> Bool) -> [UInt8] {
        var builder = ResponseHeadBuilder(statusLineOf: head, extraCapacity: 0)
        builder.add(fieldsOf: head.headers, skipping: skip)
        return builder.bytes
    }

    /// Appends every field of `headers`, in order, but those `skip` names.
    public mutating func add(fieldsOf headers: HTTPHeaders, skipping skip: (String) -> Bool) {
        for field in headers.fields where !skip(field.name) {
            add(field.name, field.value)
        }
    }

    public mutating func add(_ name: String, _ value: String) {
        addField(name) { HTTPHeaders.appendSanitized(value, to: &$0) }
    }

    public mutating func add(_ name: String, _ value: Int) {
        addField(name) { HTTPSyntax.appendDecimal(value, to: &$0) }
    }

    private mutating func addField(_ name: String, value: (inout [UInt8]) -> Void) {
        HTTPHeaders.appendSanitized(name, to: &bytes)
        bytes.append(HTTPSyntax.colon)
        bytes.append(HTTPSyntax.space)
        value(&bytes)
        bytes.append(HTTPSyntax.cr)
        bytes.append(HTTPSyntax.lf)
    }

    /// The head's bytes, ended by the empty line.
    public consuming func finished() -> [UInt8] {
        bytes.append(HTTPSyntax.cr)
        bytes.append(HTTPSyntax.lf)
        return bytes
    }
}
