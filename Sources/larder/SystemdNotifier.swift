import Dispatch
import Foundation
import Glibc

/// Speaks systemd's notify protocol (sd_notify(3)) over `$NOTIFY_SOCKET`: READY, RELOADING,
/// STOPPING and watchdog pings. Does nothing when not started by systemd.
final class SystemdNotifier: Sendable {
    private let socketPath: String?
    private let watchdogInterval: DispatchTimeInterval?
    nonisolated(unsafe) private var watchdog: DispatchSourceTimer?

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        // systemd asks for pings within WATCHDOG_USEC; ping at half that, as sd_watchdog_enabled(3) advises.
        if let text = environment["WATCHDOG_USEC"], let microseconds = Int(text), microseconds > 0,
            environment["WATCHDOG_PID"].map({ Int32($0) == getpid() }) ?? true
        {
            watchdogInterval = .microseconds(microseconds / 2)
        } else {
            watchdogInterval = nil
        }
    }

    func ready(status: String) {
        send("READY=1\nSTATUS=\(status)\nMAINPID=\(getpid())")
        startWatchdog()
    }

    func reloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
        send("RELOADING=1\nMONOTONIC_USEC=\(microseconds)")
    }

    func reloaded(status: String) {
        send("READY=1\nSTATUS=\(status)")
    }

    func stopping() {
        send("STOPPING=1")
    }

    private func startWatchdog() {
        guard let watchdogInterval, socketPath != nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "larder.watchdog"))
        timer.schedule(deadline: .now(), repeating: watchdogInterval)
        timer.setEventHandler { [self] in send("WATCHDOG=1") }
        timer.activate()
        watchdog = timer
    }

    /// One datagram to the notify socket; a leading `@` names an abstract socket.
    private func send(_ message: String) {
        guard let socketPath else { return }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + (pathBytes.first == 0 ? 0 : 1))
        let bytes = Array(message.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bytes.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), socketAddress, length) }
            }
        }
    }
}
