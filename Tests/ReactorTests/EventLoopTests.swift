import Dispatch
import Glibc
import Reactor
import Synchronization
import Testing

/// The event loop the lanes and upstream clients run on: where tasks run, in what order, and how sockets and
/// deadlines are reported.
@Suite("Event loop")
struct EventLoopTests {
    @Test("a task from another thread runs on the loop's thread; one queued from the loop runs after the current one")
    func executeOrder() async throws {
        let loop = EventLoop(name: "test-loop")
        defer { loop.stop() }
        let order = Mutex<[String]>([])
        let onLoop = Mutex<[Bool]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.execute {
                onLoop.withLock { $0.append(loop.isCurrent) }
                loop.execute {
                    order.withLock { $0.append("queued from the loop") }
                    done.resume()
                }
                order.withLock { $0.append("first") }
            }
        }
        #expect(order.withLock { $0 } == ["first", "queued from the loop"])
        #expect(onLoop.withLock { $0 } == [true])
        #expect(!loop.isCurrent)
    }

    @Test("a level-triggered socket is told of input until it is read, and of output once asked for")
    func levelTriggeredSockets() async throws {
        let loop = EventLoop(name: "test-loop")
        defer { loop.stop() }
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        let (watched, peer) = (pair[0], pair[1])
        defer {
            close(watched)
            close(peer)
        }
        let watcher = Watcher()
        let token = Mutex<UInt64?>(nil)
        loop.execute { token.withLock { $0 = loop.register(watched, watcher, events: EventLoop.readable) } }
        var byte: UInt8 = 7
        #expect(write(peer, &byte, 1) == 1)
        // Not read, so reported again: level-triggered.
        try await watcher.waitUntil { $0.filter { $0 & EventLoop.readable != 0 }.count >= 2 }
        loop.execute {
            loop.modify(watched, token: token.withLock { $0 }!, events: EventLoop.writable)
        }
        try await watcher.waitUntil { $0.contains { $0 & EventLoop.writable != 0 } }
        #expect(token.withLock { $0 } != nil)
    }

    @Test("a deadline that moves fires once, at its last time, and one taken away does not fire")
    func movingDeadline() async throws {
        let loop = EventLoop(name: "test-loop")
        defer { loop.stop() }
        let deadline = MovingDeadline()
        loop.execute {
            loop.add(deadline)
            deadline.set(afterMilliseconds: 10_000)
            deadline.set(afterMilliseconds: 5)
        }
        try await deadline.waitForFirings(1)
        loop.execute { deadline.set(afterMilliseconds: 5) }
        loop.execute { deadline.clear() }
        // A timer due well after the cleared deadline would have been: when it has run, the deadline had its chance.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.execute { loop.schedule(after: .milliseconds(50)) { done.resume() } }
        }
        #expect(deadline.firings == 1)
    }
}

private final class Watcher: EventLoopSocket, @unchecked Sendable {
    private let seen = Mutex<[UInt32]>([])

    func socketEvents(_ events: UInt32) {
        seen.withLock { $0.append(events) }
    }

    func waitUntil(_ condition: ([UInt32]) -> Bool) async throws {
        for _ in 0..<500 {
            if seen.withLock({ condition($0) }) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("condition not met; events seen: \(seen.withLock { $0 })")
    }
}

/// Touched on the loop's thread only, except `firings`, read once the loop has moved on.
private final class MovingDeadline: EventLoopDeadline, @unchecked Sendable {
    private let state = Mutex<(deadline: UInt64?, firings: Int)>((nil, 0))

    var deadline: UInt64? { state.withLock { $0.deadline } }
    var firings: Int { state.withLock { $0.firings } }

    func set(afterMilliseconds milliseconds: UInt64) {
        state.withLock { $0.deadline = DispatchTime.now().uptimeNanoseconds + milliseconds * 1_000_000 }
    }

    func clear() {
        state.withLock { $0.deadline = nil }
    }

    func deadlineReached() {
        state.withLock {
            $0.deadline = nil
            $0.firings += 1
        }
    }

    func waitForFirings(_ count: Int) async throws {
        for _ in 0..<500 where firings < count {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(firings == count)
    }
}
