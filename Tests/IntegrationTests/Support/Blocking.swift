import Foundation

/// Runs blocking socket work on a thread of its own, so a test awaiting it never ties up a thread of
/// Swift's cooperative pool (tests run in parallel and the pool has only one thread per core).
enum Blocking {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
