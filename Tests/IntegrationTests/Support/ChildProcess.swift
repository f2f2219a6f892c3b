import Foundation
import Glibc
import Synchronization

/// A program spawned with `posix_spawn`, its standard streams bound to files, and its exit reaped by a thread
/// of its own so tests can await it without blocking.
///
/// The child inherits no descriptor above 2 (test sockets must not outlive their servers inside a daemon) and
/// starts with an empty signal mask and default dispositions, whatever the test runner ignores.
/// `status` is written only while the lock is held, and `signal` sends only while `status` is nil, so a signal
/// can never reach a reused process id: the child stays an unreaped zombie until the reaper takes the lock.
final class ChildProcess: Sendable {
    let pid: pid_t
    let command: String
    private let status = Mutex<Int32?>(nil)
    private let exited = Latch()

    /// Starts `executable`. `stdout` and `stderr` are files created or appended to; pass the same path for
    /// both to interleave them. `stdin` defaults to `/dev/null`.
    init(
        executable: String,
        arguments: [String],
        environment: [String: String],
        stdin: String = "/dev/null",
        stdout: String,
        stderr: String
    ) throws {
        command = ([executable] + arguments).joined(separator: " ")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if stderr == stdout {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        }
        Self.closeInheritedDescriptors(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw HarnessError.system(call: "posix_spawn \(executable)", errno: result) }
        pid = child

        let reaper = Thread { [self] in reap() }
        reaper.name = "reaper \(child)"
        reaper.start()
    }

    /// The exit status once the child has exited: its exit code, or 128 + the signal that killed it.
    var exitStatus: Int32? { status.withLock { $0 } }

    var isRunning: Bool { exitStatus == nil }

    /// Sends `signal` unless the child has already been reaped.
    func signal(_ signal: Int32) {
        status.withLock { status in
            if status == nil { _ = kill(pid, signal) }
        }
    }

    /// Waits for the exit and returns `exitStatus`; throws `HarnessError.timedOut` after `timeout`.
    @discardableResult
    func waitForExit(timeout: Duration) async throws -> Int32 {
        try await Poll.value("\(command) to exit", timeout: timeout) { exitStatus }
    }

    /// Blocks the calling thread until the exit (for deinit and other synchronous paths); `nil` on timeout.
    @discardableResult
    func waitForExitBlocking(timeout: Duration) -> Int32? {
        exited.wait(timeout: timeout)
        return exitStatus
    }

    private func reap() {
        var info = siginfo_t()
        // Wait without reaping (WNOWAIT), so the pid stays ours until `status` is set under the lock.
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        status.withLock { status in
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            let signal = raw & 0x7F
            status = signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
        }
        exited.fire()
    }

    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        // glibc ≥ 2.34 has posix_spawn_file_actions_addclosefrom_np; Swift's Glibc module hides GNU extensions,
        // so look it up. dlsym(nil) is RTLD_DEFAULT.
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }) where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }
}
