#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fresh directory under the system temp dir, deleted with everything in it when released.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "larder-test") {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        // ! : a non-empty array always has a base address.
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed")
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        Self.removeTree(path)
    }

    private static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            if let directory = opendir(path) {
                var names: [String] = []
                while let entry = readdir(directory) {
                    let name = withUnsafePointer(to: &entry.pointee.d_name) {
                        String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
                    }
                    if name != "." && name != ".." { names.append(name) }
                }
                closedir(directory)
                for name in names { removeTree(path + "/" + name) }
            }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
