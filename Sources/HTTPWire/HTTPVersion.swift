/// The protocol version of a message (`HTTP/1.1`).
public struct HTTPVersion: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var major: Int
    public var minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    public var description: String { "HTTP/\(major).\(minor)" }

    /// Appends `HTTP/major.minor`, as `description` reads, without building the String.
    func append(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: [0x48, 0x54, 0x54, 0x50, 0x2F])  // "HTTP/"
        HTTPSyntax.appendDecimal(major, to: &bytes)
        bytes.append(0x2E)  // "."
        HTTPSyntax.appendDecimal(minor, to: &bytes)
    }
}
