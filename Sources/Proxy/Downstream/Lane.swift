import CLinux
import Dispatch
import Glibc
import Synchronization

/// A socket a lane watches: told of its readiness events, asked at the end of a turn to write what it queued (when
/// it asked to be), and every sweep to check its timeouts. All calls come on the lane's thread.
protocol LaneSocket: AnyObject {
    func socketEvents(_ events: UInt32)
    func endOfTurn()
    func checkTimeouts()
}

/// One thread with its own epoll set, running the client connections assigned to it: their reads, parsing, cache
/// lookups and writes, and every callback other threads (libcurl's, the store's) hand them through `execute`.
/// Connections are spread over the lanes (one per CPU the process may use), so no thread is spent per connection and
/// no read buffer is held per idle connection.
///
/// Why not Dispatch sources, as the listener uses: a source's handler runs on a worker thread that libdispatch's
/// event thread must first wake, and a suspended source is re-armed with `epoll_ctl`. On a 1 KiB cache hit that was
/// 1.7 context switches and 3 extra system calls per request, more CPU than the request's own work. Here the thread
/// that waits for the event runs the handler, and a socket is registered once, edge-triggered, and never re-armed.
///
/// Confinement: `scratch`, `responseFacts`, `sockets`, `timers`, `local` and `endOfTurnSockets` are touched only on
/// the lane's thread, hence `@unchecked Sendable`; other threads reach the lane only through `execute`.
final class Lane: @unchecked Sendable {
    /// The buffer the lane's connections read into, one at a time.
    var scratch: [UInt8]
    /// Parsed stored heads, for the hits this lane serves.
    let responseFacts = ResponseFactsMemo()

    private struct Timer {
        var deadline: UInt64
        var action: @Sendable () -> Void
    }

    private struct Inbox {
        var tasks: [@Sendable () -> Void] = []
        /// The wake-up descriptor has been written and the loop has not yet taken the tasks.
        var wakePending = false
    }

    private let epollDescriptor: Int32
    private let wakeDescriptor: Int32
    private let inbox = Mutex(Inbox())
    /// How often `checkTimeouts` runs on every socket, read again at each sweep (a reload may change it).
    private let sweepInterval: @Sendable () -> DispatchTimeInterval
    private var nextSweep: UInt64 = 0
    private var thread = pthread_t()
    private var sockets: [UInt64: LaneSocket] = [:]
    private var nextToken: UInt64 = 1
    private var timers: [Timer] = []
    /// Tasks queued from the lane's own thread: they run before the next wait, without a system call.
    private var local: [@Sendable () -> Void] = []
    /// Sockets that queued output this turn, told to write it once the turn's work is done.
    private var endOfTurnSockets: [LaneSocket] = []

    init(index: Int, sweepInterval: @escaping @Sendable () -> DispatchTimeInterval) {
        scratch = [UInt8](repeating: 0, count: 64 * 1024)
        self.sweepInterval = sweepInterval
        epollDescriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeDescriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        precondition(epollDescriptor >= 0 && wakeDescriptor >= 0, "cannot create an event loop: errno \(errno)")
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: 0))
        epoll_ctl(epollDescriptor, EPOLL_CTL_ADD, wakeDescriptor, &event)
        let box = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(&thread, nil, { argument in
            let lane = Unmanaged<Lane>.fromOpaque(argument!).takeRetainedValue()
            lane.run()
            return nil
        }, box)
        precondition(created == 0, "cannot start lane \(index): error \(created)")
        pthread_detach(thread)
    }

    /// Whether the caller runs on this lane's thread.
    var isCurrent: Bool { pthread_equal(pthread_self(), thread) != 0 }

    /// Runs `task` on the lane's thread, after what is already queued. From any thread.
    func execute(_ task: @escaping @Sendable () -> Void) {
        if isCurrent {
            local.append(task)
            return
        }
        let wake = inbox.withLock { inbox in
            inbox.tasks.append(task)
            defer { inbox.wakePending = true }
            return !inbox.wakePending
        }
        if wake {
            var one: UInt64 = 1
            _ = write(wakeDescriptor, &one, 8)
        }
    }

    /// Calls `socket.endOfTurn()` once everything ready now has run: what a turn queues for one socket (a response's
    /// head and body, arriving as separate upstream events; several pipelined responses) leaves in one write.
    /// Lane thread only.
    func atEndOfTurn(_ socket: LaneSocket) {
        endOfTurnSockets.append(socket)
    }

    /// Runs `task` on the lane's thread once `interval` has passed. From the lane's thread only.
    func schedule(after interval: DispatchTimeInterval, _ task: @escaping @Sendable () -> Void) {
        timers.append(Timer(deadline: (DispatchTime.now() + interval).uptimeNanoseconds, action: task))
    }

    /// Watches `descriptor` for input, output, hang-up and errors, edge-triggered: `socket` hears of each change of
    /// readiness once, and must read (or write) until the call would block before it hears again. Returns the token
    /// to unregister with, or nil when the kernel refuses (out of memory). Lane thread only.
    func register(_ descriptor: Int32, _ socket: LaneSocket) -> UInt64? {
        let token = nextToken
        let interest = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
        var event = epoll_event(events: interest, data: epoll_data_t(u64: token))
        guard epoll_ctl(epollDescriptor, EPOLL_CTL_ADD, descriptor, &event) == 0 else { return nil }
        nextToken += 1
        sockets[token] = socket
        return token
    }

    /// Stops watching `descriptor` (before it is closed or handed on). Lane thread only.
    func unregister(_ descriptor: Int32, token: UInt64) {
        sockets[token] = nil
        epoll_ctl(epollDescriptor, EPOLL_CTL_DEL, descriptor, nil)
    }

    // MARK: The loop

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        nextSweep = (DispatchTime.now() + sweepInterval()).uptimeNanoseconds
        while true {
            runLocalWork()
            let count = events.withUnsafeMutableBufferPointer { buffer in
                epoll_wait(epollDescriptor, buffer.baseAddress, Int32(buffer.count), waitMilliseconds())
            }
            if count < 0 {
                guard errno == EINTR else { fatalError("epoll_wait failed: errno \(errno)") }
                continue
            }
            for index in 0..<Int(count) {
                let event = events[index]
                if event.data.u64 == 0 {
                    takeInbox()
                } else {
                    sockets[event.data.u64]?.socketEvents(event.events)
                }
            }
            runTimers()
        }
    }

    private func takeInbox() {
        var value: UInt64 = 0
        _ = read(wakeDescriptor, &value, 8)
        let tasks = inbox.withLock { inbox in
            inbox.wakePending = false
            defer { inbox.tasks = [] }
            return inbox.tasks
        }
        local.append(contentsOf: tasks)
    }

    private func runLocalWork() {
        // Tasks may queue more, and writes may complete a producer's wait; all of it runs in this same turn, so
        // nothing waits on epoll that is ready now.
        while !local.isEmpty || !endOfTurnSockets.isEmpty {
            while !local.isEmpty {
                let tasks = local
                local = []
                for task in tasks { task() }
            }
            let sockets = endOfTurnSockets
            endOfTurnSockets = []
            for socket in sockets { socket.endOfTurn() }
        }
    }

    /// Until the next timer or sweep; 0 when tasks are waiting.
    private func waitMilliseconds() -> Int32 {
        if !local.isEmpty || !endOfTurnSockets.isEmpty { return 0 }
        let now = DispatchTime.now().uptimeNanoseconds
        let next = timers.reduce(nextSweep) { min($0, $1.deadline) }
        guard next > now else { return 0 }
        return Int32(clamping: (next - now + 999_999) / 1_000_000)
    }

    private func runTimers() {
        let now = DispatchTime.now().uptimeNanoseconds
        if !timers.isEmpty {
            var due: [Timer] = []
            timers.removeAll { timer in
                guard timer.deadline <= now else { return false }
                due.append(timer)
                return true
            }
            for timer in due { timer.action() }
        }
        if now >= nextSweep {
            nextSweep = (DispatchTime.now() + sweepInterval()).uptimeNanoseconds
            for socket in Array(sockets.values) { socket.checkTimeouts() }
        }
    }
}
