import Dispatch
import Reactor
import Upstream

/// What a lane's client connections are to its loop.
typealias LaneSocket = EventLoopSocket

/// One thread with its own epoll set (an `EventLoop`), running the client connections assigned to it: their reads,
/// parsing, cache lookups and writes, the libcurl transfers of their misses (the lane's own `upstream` client), and
/// every callback other threads (the store's) hand them through `execute`. Connections are spread over the lanes (one
/// per CPU the process may use), so no thread is spent per connection, no read buffer is held per idle connection,
/// and a miss never waits for another thread to be scheduled: on one CPU, handing each response from a libcurl
/// thread to the client's thread cost about one context switch per miss.
final class Lane: EventLoop, @unchecked Sendable {
    /// The buffer the lane's connections read into, one at a time.
    var scratch: [UInt8]
    /// Parsed stored heads, for the hits this lane serves.
    let responseFacts = ResponseFactsMemo()
    /// Fetches this lane's misses, on this lane's thread; set once, right after the loop exists.
    private(set) var upstream: UpstreamClient!

    init(
        index: Int,
        sweepInterval: @escaping @Sendable () -> DispatchTimeInterval,
        upstream makeClient: (EventLoop) -> UpstreamClient
    ) {
        scratch = [UInt8](repeating: 0, count: 64 * 1024)
        super.init(name: "larder-lane-\(index)", sweepInterval: sweepInterval)
        upstream = makeClient(self)
    }
}
