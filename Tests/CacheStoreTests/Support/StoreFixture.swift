import CacheStore
import HTTPWire
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Limits most tests use: room for everything, a 512 KiB cut-off for bodies in memory.
let roomyLimits = StoreLimits(memoryMaxBytes: 4 << 20, diskMaxBytes: 64 << 20, maxObjectSize: 16 << 20)

func openStore(
    _ directory: TemporaryDirectory, limits: StoreLimits = roomyLimits, logger: Logger = LogRecorder().logger
) throws -> CacheStore {
    try CacheStore(directory: directory.cache, limits: limits, logger: logger)
}

/// An entry for `http://example.com<path>`, as the proxy would make it before storing.
func makeEntry(
    _ path: String, method: String = "GET", variant: String = "", route: String = "default",
    responseTime: Int64 = 1_700_000_000, headers: HTTPHeaders = ["Content-Type": "text/plain"]
) -> StoredEntry {
    StoredEntry(
        key: "\(method) http://example.com\(path)", variant: variant, url: "http://example.com\(path)", route: route,
        head: ResponseHead(status: 200, headers: headers), varyRequestHeaders: [:],
        requestTime: responseTime - 1, responseTime: responseTime)
}

/// `count` bytes that differ with `seed`, so a body served for the wrong entry shows.
func pattern(_ count: Int, seed: Int = 0) -> [UInt8] {
    var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
    return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        // Eight bytes per xorshift step: debug builds are slow per byte.
        var offset = 0
        while offset < count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            var word = state
            for _ in 0..<min(8, count - offset) {
                buffer[offset] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                offset += 1
            }
        }
        initialized = count
    }
}

/// Streams `body` through a writer in chunks, commits, and waits until it is durable; returns the commit's result.
@discardableResult
func put(
    _ store: CacheStore, _ entry: StoredEntry, _ body: [UInt8], declareSize: Bool = true, chunk: Int = 7_000
) -> Bool {
    guard let writer = store.writer(for: entry, expectedSize: declareSize ? body.count : nil) else { return false }
    let result = Mutex<Bool?>(nil)
    var offset = 0
    while offset < body.count {
        let end = min(offset + chunk, body.count)
        writer.append(Array(body[offset..<end]))
        offset = end
    }
    writer.commit { stored in result.withLock { $0 = stored } }
    store.flush()
    return result.withLock { $0 } ?? false
}

/// The bytes of a stored body; closes a file body's descriptor.
func contents(_ body: StoredBody?) -> [UInt8]? {
    switch body {
    case nil: return nil
    case .bytes(let bytes): return bytes
    case .file(_, let size, let descriptor):
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            // ! : size > 0 inside the loop, so the buffer has a base address.
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + offset, size - offset) }
            if count <= 0 { return nil }
            offset += count
        }
        return bytes
    }
}

/// Whether the store answered a miss; closes a file body's descriptor.
func isMiss(_ body: StoredBody?) -> Bool {
    if case .file(_, _, let descriptor) = body { close(descriptor) }
    return body == nil
}

/// Whether the body came as an open file (for sendfile) rather than bytes.
func isFile(_ body: StoredBody?) -> Bool {
    if case .file(_, _, let descriptor) = body {
        close(descriptor)
        return true
    }
    return false
}

func fileNames(in path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafePointer(to: &entry.pointee.d_name) {
            String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// Every body file under `bodies/`, as paths.
func bodyFiles(in cache: String) -> [String] {
    fileNames(in: cache + "/bodies").flatMap { bucket in
        fileNames(in: cache + "/bodies/" + bucket).map { cache + "/bodies/" + bucket + "/" + $0 }
    }
}

func fileSize(_ path: String) -> Int? {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : nil
}

func permissions(_ path: String) -> mode_t? {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
}

func removeFile(_ path: String) {
    unlink(path)
}

func makeDirectory(_ path: String) {
    mkdir(path, 0o700)
}

func writeFile(_ path: String, _ bytes: [UInt8]) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    precondition(descriptor >= 0, "cannot create \(path)")
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
}

/// Overwrites bytes in place; the file keeps its size.
func flipBytes(_ path: String, at offset: Int, count: Int = 16) {
    let descriptor = open(path, O_RDWR)
    precondition(descriptor >= 0, "cannot open \(path)")
    var bytes = [UInt8](repeating: 0, count: count)
    _ = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
    bytes = bytes.map { ~$0 }
    _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, count, off_t(offset)) }
    close(descriptor)
}
