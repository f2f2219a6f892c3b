import CacheStore
import Dispatch
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real `kill -9`: this test binary runs `crashChild` in a child process that writes bodies as fast as it can
/// and reports each commit on fd 3; the parent kills it mid-stream, reopens the cache, and checks every body.
@Suite("Crash safety")
struct CrashTests {
    static let childDirectoryVariable = "LARDER_STORE_CRASH_CHILD"
    static let sizes = [500, 30_000, 200_000, 700_000]

    static func entry(_ id: Int) -> StoredEntry {
        makeEntry("/crash/\(id)", headers: ["X-Id": "\(id)"])
    }

    @Test(
        "after kill -9 during heavy writes, every reported commit is whole and nothing truncated is served",
        .enabled(if: CommandLine.arguments.first?.hasSuffix(".xctest") == true))
    func killDuringWrites() throws {
        let directory = TemporaryDirectory()
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        let child = try spawnChild(directory: directory.cache, reportTo: pipeEnds[1])
        close(pipeEnds[1])

        var reported: Set<Int> = []
        var pending: [UInt8] = []
        var killed = false
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            pending += buffer[0..<count]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                if let id = Int(String(decoding: pending[..<newline], as: UTF8.self)) { reported.insert(id) }
                pending.removeSubrange(...newline)
            }
            if !killed && reported.count >= 150 {
                kill(child, SIGKILL)
                killed = true
            }
        }
        close(pipeEnds[0])
        var status: Int32 = 0
        waitpid(child, &status, 0)
        #expect(killed, "the child stopped before it was killed")
        #expect(reported.count >= 150)

        let leftovers = fileNames(in: directory.cache + "/tmp").count
        let store = try openStore(directory, limits: Self.limits)
        #expect(fileNames(in: directory.cache + "/tmp").isEmpty)
        for id in reported {
            let stored = store.variants(forKey: Self.entry(id).key).first
            #expect(stored != nil, "committed entry \(id) lost")
            if let stored {
                #expect(contents(store.body(of: stored)) == pattern(stored.bodySize, seed: id), "entry \(id)")
            }
        }
        // Rows committed after the last report must be whole too.
        let all = store.entries(urlPrefix: "http://example.com/crash/", limit: 1_000_000)
        for stored in all {
            let id = Int(stored.head.headers["X-Id"] ?? "") ?? -1
            #expect(stored.bodySize == Self.sizes[id % Self.sizes.count])
            #expect(contents(store.body(of: stored)) == pattern(stored.bodySize, seed: id), "entry \(id)")
        }
        print("kill -9: \(reported.count) commits reported, \(all.count) rows, \(leftovers) unfinished bodies")
        store.waitForOrphanSweep()
        #expect(bodyFiles(in: directory.cache).count == all.filter { $0.bodySize > 16 * 1024 }.count)
    }

    /// The child half: runs only in the process `killDuringWrites` starts, and never returns on its own terms.
    @Test(.enabled(if: getenv(CrashTests.childDirectoryVariable) != nil))
    func crashChild() throws {
        // ! : the trait above runs this test only when the variable is set.
        let directory = String(cString: getenv(Self.childDirectoryVariable)!)
        let store = try CacheStore(directory: directory, limits: Self.limits, logger: LogRecorder().logger)
        // At most 16 bodies in flight, as if from 16 clients.
        let inFlight = DispatchSemaphore(value: 16)
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            for id in stride(from: worker, to: 2_000, by: 2) {
                let body = pattern(Self.sizes[id % Self.sizes.count], seed: id)
                inFlight.wait()
                guard let writer = store.writer(for: Self.entry(id), expectedSize: body.count) else {
                    inFlight.signal()
                    continue
                }
                var offset = 0
                while offset < body.count {
                    writer.append(Array(body[offset..<min(offset + 32_768, body.count)]))
                    offset += 32_768
                }
                writer.commit { stored in
                    inFlight.signal()
                    guard stored else { return }
                    let line = Array("\(id)\n".utf8)
                    _ = line.withUnsafeBytes { write(3, $0.baseAddress, $0.count) }
                }
            }
        }
        store.flush()
    }

    static let limits = StoreLimits(memoryMaxBytes: 8 << 20, diskMaxBytes: 4 << 30, maxObjectSize: 8 << 20)

    /// Starts this test binary again, running only `crashChild`, with `reportTo` as its fd 3.
    private func spawnChild(directory: String, reportTo descriptor: Int32) throws -> pid_t {
        let binary = CommandLine.arguments[0]
        let arguments = [binary, "--testing-library", "swift-testing", "--filter", "CrashTests/crashChild"]
        var environment = ["\(Self.childDirectoryVariable)=\(directory)"]
        var cursor = environ
        while let variable = cursor.pointee {
            environment.append(String(cString: variable))
            cursor += 1
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, descriptor, 3)
        let devNull = open("/dev/null", O_WRONLY)
        defer { close(devNull) }
        posix_spawn_file_actions_adddup2(&actions, devNull, 1)
        posix_spawn_file_actions_adddup2(&actions, devNull, 2)

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, binary, &actions, nil, argv, envp)
        try #require(result == 0, "posix_spawn failed: \(result)")
        return pid
    }
}
