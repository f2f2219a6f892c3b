/// An address libcurl is about to connect to: 4 or 16 bytes and a port.
public struct DestinationAddress: Sendable, Equatable {
    public var bytes: [UInt8]
    public var port: Int

    public init(bytes: [UInt8], port: Int) {
        self.bytes = bytes
        self.port = port
    }
}

/// Whether Larder may open a connection to an address.
public enum DestinationVerdict: Sendable, Equatable {
    case allow
    /// Forbidden by policy (link-local / cloud metadata ranges by default).
    case prohibited
    /// The address is Larder's own listener: forwarding would loop.
    case loop
}
