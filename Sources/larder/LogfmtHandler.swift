import Glibc
import Logging
import Synchronization

/// One logfmt line per event (`ts=… level=info msg=listening address=127.0.0.1:3128`), written to
/// stderr in a single `write`, so lines from different threads never interleave and journald
/// keeps each as one entry. Under systemd (`JOURNAL_STREAM` set) the timestamp is left to journald.
struct LogfmtHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level
    let label: String
    private let withTimestamp: Bool

    init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
        self.withTimestamp = getenv("JOURNAL_STREAM") == nil
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = ""
        line.reserveCapacity(160)
        if withTimestamp {
            line += "ts="
            line += Self.timestamp()
            line += " "
        }
        line += "level="
        line += event.level.rawValue
        line += " msg="
        line += Self.quoted("\(event.message)")
        let merged = event.metadata.map { metadata.merging($0) { $1 } } ?? metadata
        for key in merged.keys.sorted() {
            line += " "
            line += key
            line += "="
            line += Self.quoted("\(merged[key]!)")  // key comes from the dictionary itself
        }
        line += "\n"
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { _ = write(2, $0.baseAddress, $0.count) }
    }

    /// Values with spaces, quotes or `=` are quoted, as logfmt readers expect.
    static func quoted(_ value: String) -> String {
        if !value.isEmpty && !value.utf8.contains(where: { $0 <= 0x20 || $0 == 0x22 || $0 == 0x3D || $0 == 0x5C }) {
            return value
        }
        var result = "\""
        for character in value.unicodeScalars {
            switch character {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            default: result.unicodeScalars.append(character)
            }
        }
        return result + "\""
    }

    /// RFC 3339 UTC with milliseconds, without Foundation's formatters.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(parts.tm_year + 1900)-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(now.tv_nsec / 1_000_000), 3))Z"
    }
}
