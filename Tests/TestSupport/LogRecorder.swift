import Logging
import Synchronization

/// Collects what the code under test logs, so a test can count messages.
public final class LogRecorder: Sendable {
    struct Line: Sendable {
        var level: Logger.Level
        var message: String
    }

    private let lines = Mutex<[Line]>([])

    public init() {}

    public var logger: Logger {
        Logger(label: "larder.test") { _ in Handler(recorder: self) }
    }

    public func count(_ level: Logger.Level, containing text: String) -> Int {
        lines.withLock { $0.filter { $0.level == level && $0.message.contains(text) }.count }
    }

    public func count(atLeast level: Logger.Level) -> Int {
        lines.withLock { $0.filter { $0.level >= level }.count }
    }

    private func record(_ line: Line) {
        lines.withLock { $0.append(line) }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.record(Line(level: event.level, message: event.message.description))
        }
    }
}
