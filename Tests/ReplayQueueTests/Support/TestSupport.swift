// Shared with the other unit-test targets: TemporaryDirectory, LogRecorder.
@_exported import TestSupport

extension TemporaryDirectory {
    /// The queue file tests open: in a directory the queue itself creates, as `STATE_DIR` may not exist yet.
    var queueFile: String { path + "/state/queue.sqlite" }
}
