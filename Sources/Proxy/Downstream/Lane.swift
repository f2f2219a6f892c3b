import Dispatch

/// One serial queue and the scratch buffer its connections read into. Connections are spread
/// over a few lanes (about one per core), so no thread is spent per connection and no read
/// buffer is held per idle connection.
final class Lane: @unchecked Sendable {
    let queue: DispatchQueue
    /// Touched only on `queue`, by whichever connection is reading.
    var scratch: [UInt8]

    init(index: Int) {
        queue = DispatchQueue(label: "larder.lane.\(index)")
        scratch = [UInt8](repeating: 0, count: 64 * 1024)
    }
}
