extension RequestParser {
    /// Hands over every byte not yet parsed and stops parsing. After a successful CONNECT, whatever
    /// the client sent behind the request head belongs to the tunnel, not to HTTP.
    public mutating func takeBufferedBytes() -> [UInt8] {
        let rest = Array(directBody.joined()) + buffer[readIndex...]
        buffer = []
        readIndex = 0
        directBody = []
        directBodyByteCount = 0
        lineScanned = 0
        state = .finished
        return rest
    }
}
