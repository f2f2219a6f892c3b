import CLinux
import Dispatch
import Glibc
import Synchronization

/// A descriptor an event loop watches: told of its readiness events, asked at the end of a turn to write what it
/// queued (when it asked to be), and every sweep to check its timeouts. All calls come on the loop's thread.
public protocol EventLoopSocket: AnyObject {
    func socketEvents(_ events: UInt32)
    func endOfTurn()
    func checkTimeouts()
}

extension EventLoopSocket {
    public func endOfTurn() {}
    public func checkTimeouts() {}
}

/// Something with one deadline at a time that may move or go away at any moment (libcurl's timer): asked for it before
/// each wait, told when it has passed. Unlike `schedule(after:)`, a moved deadline leaves nothing behind.
public protocol EventLoopDeadline: AnyObject {
    /// In `DispatchTime.uptimeNanoseconds`; nil for none.
    var deadline: UInt64? { get }
    func deadlineReached()
}

/// One thread with its own epoll set, running everything assigned to it: sockets registered with it, and tasks other
/// threads hand it through `execute`.
///
/// Why not Dispatch sources: a source's handler runs on a worker thread that libdispatch's event thread must first
/// wake, and a suspended source is re-armed with `epoll_ctl`. On a 1 KiB cache hit that was 1.7 context switches and
/// 3 extra system calls per request, more CPU than the request's own work. Here the thread that waits for the event
/// runs the handler, and a client socket is registered once, edge-triggered, and never re-armed. The proxy's lanes
/// each run one, with the libcurl multi handle of their own transfers on it (see `UpstreamClient`), so a miss is
/// read, fetched and answered on one thread, with no hand-over between threads.
///
/// Confinement: `sockets`, `timers`, `deadlines`, `local` and `endOfTurnSockets` are touched only on the loop's
/// thread, hence `@unchecked Sendable`; other threads reach the loop only through `execute`.
open class EventLoop: @unchecked Sendable {
    private struct Timer {
        var deadline: UInt64
        var action: @Sendable () -> Void
    }

    private struct Inbox {
        var tasks: [@Sendable () -> Void] = []
        /// The wake-up descriptor has been written and the loop has not yet taken the tasks.
        var wakePending = false
        var stopping = false
        /// The loop has ended and closed its descriptors: tasks are dropped.
        var closed = false
    }

    /// Readiness for input, output, hang-up and errors, edge-triggered: the socket hears of each change once, and
    /// must read (or write) until the call would block before it hears again.
    public static let edgeTriggered = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
    public static let readable = EPOLLIN.rawValue
    public static let writable = EPOLLOUT.rawValue

    private let name: String
    private let epollDescriptor: Int32
    private let wakeDescriptor: Int32
    private let inbox = Mutex(Inbox())
    /// How often `checkTimeouts` runs on every socket, read again at each sweep (a reload may change it).
    private let sweepInterval: @Sendable () -> DispatchTimeInterval
    private var nextSweep: UInt64 = 0
    private var thread = pthread_t()
    private var sockets: [UInt64: EventLoopSocket] = [:]
    private var nextToken: UInt64 = 1
    private var timers: [Timer] = []
    private var deadlines: [EventLoopDeadline] = []
    /// Tasks queued from the loop's own thread: they run before the next wait, without a system call.
    private var local: [@Sendable () -> Void] = []
    /// Sockets that queued output this turn, told to write it once the turn's work is done.
    private var endOfTurnSockets: [EventLoopSocket] = []

    public init(name: String, sweepInterval: @escaping @Sendable () -> DispatchTimeInterval = { .seconds(1) }) {
        self.name = name
        self.sweepInterval = sweepInterval
        epollDescriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeDescriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        precondition(epollDescriptor >= 0 && wakeDescriptor >= 0, "cannot create an event loop: errno \(errno)")
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: 0))
        epoll_ctl(epollDescriptor, EPOLL_CTL_ADD, wakeDescriptor, &event)
        // The thread holds the loop until `stop()`: a loop's owners may let go of it while work is queued.
        let box = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(&thread, nil, { argument in
            let loop = Unmanaged<EventLoop>.fromOpaque(argument!).takeRetainedValue()
            loop.run()
            return nil
        }, box)
        precondition(created == 0, "cannot start \(name): error \(created)")
        pthread_detach(thread)
    }

    /// Whether the caller runs on this loop's thread.
    public var isCurrent: Bool { pthread_equal(pthread_self(), thread) != 0 }

    /// Runs `task` on the loop's thread, after what is already queued; from the loop's own thread, once the code
    /// running now has returned to the loop, never inside it. From any thread.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        if isCurrent {
            local.append(task)
            return
        }
        inbox.withLock { inbox in
            // A stopped loop's descriptors are closed, and their numbers may already belong to other files.
            guard !inbox.closed else { return }
            inbox.tasks.append(task)
            if !inbox.wakePending {
                inbox.wakePending = true
                signal()
            }
        }
    }

    /// Ends the loop's thread once the tasks queued now have run; sockets still registered are left as they are, and
    /// tasks handed to it afterwards are dropped. From any thread.
    public func stop() {
        inbox.withLock { inbox in
            guard !inbox.closed, !inbox.stopping else { return }
            inbox.stopping = true
            signal()
        }
    }

    /// Calls `socket.endOfTurn()` once everything ready now has run: what a turn queues for one socket (a response's
    /// head and body, arriving as separate upstream events; several pipelined responses) leaves in one write.
    /// Loop thread only.
    public func atEndOfTurn(_ socket: EventLoopSocket) {
        endOfTurnSockets.append(socket)
    }

    /// Runs `task` on the loop's thread once `interval` has passed. From the loop's thread only.
    public func schedule(after interval: DispatchTimeInterval, _ task: @escaping @Sendable () -> Void) {
        timers.append(Timer(deadline: (DispatchTime.now() + interval).uptimeNanoseconds, action: task))
    }

    /// Consults `deadline` before every wait from now on. Loop thread only.
    public func add(_ deadline: EventLoopDeadline) {
        deadlines.append(deadline)
    }

    /// Watches `descriptor` for `events` (edge-triggered client sockets by default; level-triggered input or output
    /// for libcurl's). Returns the token to change or unregister with, or nil when the kernel refuses (out of
    /// memory). Loop thread only.
    public func register(_ descriptor: Int32, _ socket: EventLoopSocket, events: UInt32 = edgeTriggered) -> UInt64? {
        let token = nextToken
        var event = epoll_event(events: events, data: epoll_data_t(u64: token))
        guard epoll_ctl(epollDescriptor, EPOLL_CTL_ADD, descriptor, &event) == 0 else { return nil }
        nextToken += 1
        sockets[token] = socket
        return token
    }

    /// Watches a registered descriptor for other events. Loop thread only.
    @discardableResult
    public func modify(_ descriptor: Int32, token: UInt64, events: UInt32) -> Bool {
        var event = epoll_event(events: events, data: epoll_data_t(u64: token))
        return epoll_ctl(epollDescriptor, EPOLL_CTL_MOD, descriptor, &event) == 0
    }

    /// Stops watching `descriptor` (before it is closed or handed on). Loop thread only.
    public func unregister(_ descriptor: Int32, token: UInt64) {
        sockets[token] = nil
        epoll_ctl(epollDescriptor, EPOLL_CTL_DEL, descriptor, nil)
    }

    // MARK: The loop

    private func signal() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, 8)
    }

    private func run() {
        larder_name_thread(name)
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
                    if takeInbox() { return finish() }
                } else {
                    sockets[event.data.u64]?.socketEvents(event.events)
                }
            }
            runTimers()
        }
    }

    /// Moves tasks from other threads to the local queue; true once the loop is asked to stop.
    private func takeInbox() -> Bool {
        var value: UInt64 = 0
        _ = read(wakeDescriptor, &value, 8)
        let (tasks, stopping) = inbox.withLock { inbox in
            inbox.wakePending = false
            defer { inbox.tasks = [] }
            return (inbox.tasks, inbox.stopping)
        }
        local.append(contentsOf: tasks)
        return stopping
    }

    private func finish() {
        runLocalWork()
        sockets = [:]
        deadlines = []
        timers = []
        inbox.withLock { inbox in
            inbox.closed = true
            inbox.tasks = []
            close(epollDescriptor)
            close(wakeDescriptor)
        }
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

    /// Until the next timer, deadline or sweep; 0 when tasks are waiting.
    private func waitMilliseconds() -> Int32 {
        if !local.isEmpty || !endOfTurnSockets.isEmpty { return 0 }
        let now = DispatchTime.now().uptimeNanoseconds
        var next = timers.reduce(nextSweep) { min($0, $1.deadline) }
        for deadline in deadlines {
            if let due = deadline.deadline { next = min(next, due) }
        }
        guard next > now else { return 0 }
        return Int32(clamping: (next - now + 999_999) / 1_000_000)
    }

    private func runTimers() {
        let now = DispatchTime.now().uptimeNanoseconds
        for deadline in deadlines {
            if let due = deadline.deadline, due <= now { deadline.deadlineReached() }
        }
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
