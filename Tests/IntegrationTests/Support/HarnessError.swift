import Foundation

/// Why the test harness itself could not do what a test asked (as opposed to Larder misbehaving).
enum HarnessError: Error, CustomStringConvertible {
    case system(call: String, errno: Int32)
    case timedOut(String)
    case binaryNotFound(String)
    case daemonExited(status: Int32, log: String)
    case daemonStillRunning(pid: Int32)
    case malformed(String)

    var description: String {
        switch self {
        case .system(let call, let code):
            return "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        case .timedOut(let what):
            return "timed out waiting for \(what)"
        case .binaryNotFound(let detail):
            return detail
        case .daemonExited(let status, let log):
            return "larder exited with status \(status) before it was ready; its log:\n\(log)"
        case .daemonStillRunning(let pid):
            return "larder (pid \(pid)) is still running; terminate() or kill9() it before restart()"
        case .malformed(let detail):
            return detail
        }
    }
}
