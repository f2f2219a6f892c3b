// Shared with the other unit-test targets: TemporaryDirectory, LogRecorder.
@_exported import TestSupport

extension TemporaryDirectory {
    /// The cache directory tests open: one level down, so the store itself creates it.
    var cache: String { path + "/cache" }
}
