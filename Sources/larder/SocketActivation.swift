import Foundation
import Glibc

/// systemd socket activation (sd_listen_fds(3)): the listening socket arrives as descriptor 3.
enum SocketActivation {
    static func listeningDescriptor(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32? {
        guard let pid = environment["LISTEN_PID"].flatMap({ Int32($0) }), pid == getpid(),
            let count = environment["LISTEN_FDS"].flatMap({ Int($0) }), count >= 1
        else { return nil }
        // Children must not inherit these.
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
        return 3
    }
}
