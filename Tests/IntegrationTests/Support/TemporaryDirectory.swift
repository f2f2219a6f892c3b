import Foundation

/// A fresh directory under the system temporary directory, removed when its last owner lets go.
/// Set `LARDER_KEEP_TEST_DIRS=1` to keep them for a post-mortem (their paths are in failure messages).
final class TemporaryDirectory: Sendable {
    let url: URL

    init(prefix: String) throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        if ProcessInfo.processInfo.environment["LARDER_KEEP_TEST_DIRS"] != "1" {
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// `name` inside the directory (not created).
    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }
}
