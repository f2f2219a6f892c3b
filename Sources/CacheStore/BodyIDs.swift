import Synchronization

/// Hands out body ids: a random start drawn once per store, then consecutive values.
///
/// An id names a body file (`bodies/xx/<id>`, bucketed by its low byte, which consecutive values spread evenly)
/// and tells a replaced response from its successor, so it must not repeat among the rows of the index. Within
/// one run the counter never repeats; across runs each start is random, so two runs' ranges overlap only with
/// the odds random ids always had. Drawing once instead of per writer keeps `getrandom` off the miss path.
final class BodyIDs: Sendable {
    private let start: UInt64
    private let issued = Atomic<UInt64>(0)

    init() {
        start = UInt64.random(in: 1...UInt64.max)
    }

    /// A new id, never 0 (0 is "no body yet").
    func next() -> UInt64 {
        while true {
            let id = start &+ issued.add(1, ordering: .relaxed).oldValue
            if id != 0 { return id }
        }
    }
}
