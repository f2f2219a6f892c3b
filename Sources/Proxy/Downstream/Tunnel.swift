import Dispatch
import Glibc

/// A blind two-way byte pipe between a client and the host it CONNECTed to. Nothing is parsed or
/// cached. With no byte either way for `idleLimit`, both sides are closed. All state is touched only on `queue`.
final class Tunnel: @unchecked Sendable {
    /// One direction: bytes read from `source` are written to `destination`.
    private final class Direction {
        let source: Int32
        let destination: Int32
        let reader: DispatchSourceRead
        let writer: DispatchSourceWrite
        var pending: [UInt8]
        var pendingOffset = 0
        var readerSuspended = false
        var writerSuspended = true
        var finished = false

        init(from source: Int32, to destination: Int32, initial: [UInt8], queue: DispatchQueue) {
            self.source = source
            self.destination = destination
            self.pending = initial
            reader = DispatchSource.makeReadSource(fileDescriptor: source, queue: queue)
            writer = DispatchSource.makeWriteSource(fileDescriptor: destination, queue: queue)
        }
    }

    private let queue: DispatchQueue
    private let client: Int32
    private let origin: Int32
    private var directions: [Direction] = []
    private var buffer = [UInt8](repeating: 0, count: 32 * 1024)
    private var openSources = 4
    private var closed = false
    private let onClose: @Sendable (_ bytesToClient: Int, _ idle: Bool) -> Void
    private var bytesToClient = 0
    /// Nanoseconds; 0 for no limit.
    private let idleLimit: UInt64
    private let idleCheck: DispatchSourceTimer
    private var lastActivity = DispatchTime.now()
    private var closedForIdleness = false

    init(
        client: Int32, origin: Int32, toClient: [UInt8], toOrigin: [UInt8], idleLimit: UInt64,
        queue: DispatchQueue, onClose: @escaping @Sendable (_ bytesToClient: Int, _ idle: Bool) -> Void
    ) {
        self.queue = queue
        self.client = client
        self.origin = origin
        self.idleLimit = idleLimit
        self.onClose = onClose
        idleCheck = DispatchSource.makeTimerSource(queue: queue)
        directions = [
            Direction(from: client, to: origin, initial: toOrigin, queue: queue),
            Direction(from: origin, to: client, initial: toClient, queue: queue),
        ]
    }

    /// Call on `queue`. The tunnel keeps itself alive until both sides are done.
    func start() {
        for direction in directions {
            direction.reader.setEventHandler { [self] in readable(direction) }
            direction.writer.setEventHandler { [self] in writable(direction) }
            for source in [direction.reader, direction.writer] as [any DispatchSourceProtocol] {
                source.setCancelHandler { [self] in sourceCancelled() }
            }
            direction.writer.activate()
            direction.writer.suspend()
            direction.reader.activate()
            if !direction.pending.isEmpty { writable(direction) }
        }
        // Checked a few times per limit, so a silent tunnel closes within a quarter of it after its time. A limit of
        // 0 means none.
        let limit = idleLimit
        guard limit > 0 else { return }
        idleCheck.setEventHandler { [self] in
            guard DispatchTime.now().uptimeNanoseconds - lastActivity.uptimeNanoseconds >= limit else { return }
            closedForIdleness = true
            close()
        }
        idleCheck.schedule(
            deadline: .now() + .nanoseconds(Int(limit / 4)), repeating: .nanoseconds(Int(max(limit / 4, 1_000_000))),
            leeway: .nanoseconds(Int(limit / 20)))
        idleCheck.activate()
    }

    private func readable(_ direction: Direction) {
        guard !closed else { return }
        let count = buffer.withUnsafeMutableBytes { read(direction.source, $0.baseAddress, $0.count) }
        if count > 0 {
            lastActivity = .now()
            direction.pending.append(contentsOf: buffer[0..<count])
            writable(direction)
        } else if count == 0 {
            // Half-close: pass the end on, keep the other direction running.
            direction.finished = true
            setReading(direction, false)
            if direction.pending.isEmpty { shutdown(direction.destination, Int32(SHUT_WR)) }
            if directions.allSatisfy({ $0.finished && $0.pending.isEmpty }) { close() }
        } else if errno != EAGAIN && errno != EINTR {
            close()
        }
    }

    private func writable(_ direction: Direction) {
        guard !closed else { return }
        while direction.pendingOffset < direction.pending.count {
            let written = direction.pending.withUnsafeBytes { raw in
                write(direction.destination, raw.baseAddress! + direction.pendingOffset, raw.count - direction.pendingOffset)
            }
            if written < 0 {
                if errno == EAGAIN || errno == EINTR { break }
                return close()
            }
            direction.pendingOffset += written
            if direction.destination == client { bytesToClient += written }
        }
        if direction.pendingOffset == direction.pending.count {
            direction.pending.removeAll(keepingCapacity: true)
            direction.pendingOffset = 0
            setWriting(direction, false)
            setReading(direction, !direction.finished)
            if direction.finished {
                shutdown(direction.destination, Int32(SHUT_WR))
                if directions.allSatisfy({ $0.finished && $0.pending.isEmpty }) { close() }
            }
        } else {
            // The destination is slow: stop reading the source until it catches up.
            setWriting(direction, true)
            setReading(direction, false)
        }
    }

    private func setReading(_ direction: Direction, _ on: Bool) {
        if on && direction.readerSuspended {
            direction.readerSuspended = false
            direction.reader.resume()
        } else if !on && !direction.readerSuspended {
            direction.readerSuspended = true
            direction.reader.suspend()
        }
    }

    private func setWriting(_ direction: Direction, _ on: Bool) {
        if on && direction.writerSuspended {
            direction.writerSuspended = false
            direction.writer.resume()
        } else if !on && !direction.writerSuspended {
            direction.writerSuspended = true
            direction.writer.suspend()
        }
    }

    private func close() {
        guard !closed else { return }
        closed = true
        idleCheck.cancel()
        for direction in directions {
            setReading(direction, true)
            setWriting(direction, true)
            direction.reader.cancel()
            direction.writer.cancel()
        }
    }

    private func sourceCancelled() {
        openSources -= 1
        guard openSources == 0 else { return }
        Glibc.close(client)
        Glibc.close(origin)
        onClose(bytesToClient, closedForIdleness)
        directions = []
    }
}
