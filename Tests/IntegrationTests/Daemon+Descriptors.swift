import Foundation
import Testing

extension Daemon {
    /// The descriptor count once it has held still for several reads in a row (connections that just
    /// finished close asynchronously).
    func settledFileDescriptorCount() async throws -> Int {
        var last = -1
        var unchanged = 0
        return try await Poll.value("larder's descriptor count to settle", timeout: .seconds(30)) { () -> Int? in
            let count = openFileDescriptorCount()
            unchanged = count == last ? unchanged + 1 : 0
            last = count
            return unchanged >= 5 ? count : nil
        }
    }

    /// Waits until the daemon holds at most `count` descriptors; records an issue listing them if it
    /// still holds more after `timeout`.
    func expectDescriptors(
        atMost count: Int, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        var now = -1
        do {
            try await Poll.until("larder to hold at most \(count) descriptors", timeout: timeout) {
                now = openFileDescriptorCount()
                return now <= count
            }
        } catch {
            Issue.record(
                "larder holds \(now) descriptors, expected at most \(count): \(descriptorListing)",
                sourceLocation: sourceLocation)
        }
    }

    /// What the daemon's descriptors point at, for failure messages.
    var descriptorListing: String {
        let directory = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }.map { name in
            "\(name) -> \((try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)")) ?? "?")"
        }.joined(separator: ", ")
    }

    /// CPU time the daemon has used so far, user and system, from `/proc/PID/stat` (in clock ticks).
    func cpuTime() throws -> Duration {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the
        // 14th and 15th of the whole line, the 12th and 13th after the name.
        guard let close = stat.lastIndex(of: ")") else { throw HarnessError.malformed("/proc/\(pid)/stat: \(stat)") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw HarnessError.malformed("/proc/\(pid)/stat: \(stat)")
        }
        return .seconds(Double(user + system) / Double(sysconf(Int32(_SC_CLK_TCK))))
    }
}
