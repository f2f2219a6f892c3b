import CachePolicy
import CacheStore
import HTTPWire

/// The parsed facts of the stored responses a lane served lately, so that a hit does not parse its stored head's
/// `Cache-Control`, dates and `Vary` again (they were a tenth of a 1 KiB hit's CPU), nor write its status line and
/// stored fields again (`headPrefix`).
///
/// Keyed by body id, and reused only for the very head and times they were read from: a 304 that refreshed the
/// stored head keeps the body id but changes the head, and gets new facts. The comparison is cheap, because the
/// memory tier hands out the same field storage every time. Confinement: one per lane, used only on its thread.
final class ResponseFactsMemo {
    private final class Remembered {
        let response: ResponseHead
        let facts: StoredResponseFacts
        /// `headPrefix`, once a hit asked for it.
        var headPrefix: [UInt8]?

        init(response: ResponseHead, facts: StoredResponseFacts) {
            self.response = response
            self.facts = facts
        }
    }

    /// Past this many, the memo starts over: a bound on memory, not an eviction policy worth more.
    static let capacity = 4096

    private var byBody: [UInt64: Remembered] = [:]

    func facts(for entry: StoredEntry, heuristicCap: Int64) -> StoredResponseFacts {
        let times = entry.times
        if let remembered = byBody[entry.bodyID], remembered.facts.times == times,
            remembered.facts.heuristicCap == heuristicCap, remembered.response == entry.head
        {
            return remembered.facts
        }
        let facts = StoredResponseFacts(response: entry.head, times: times, heuristicCap: heuristicCap)
        if byBody.count >= Self.capacity { byBody.removeAll(keepingCapacity: true) }
        byBody[entry.bodyID] = Remembered(response: entry.head, facts: facts)
        return facts
    }

    /// The stored head's status line and the fields a hit writes as stored (all but `Exchange.isReplacedOnHit`
    /// ones), as bytes for `ResponseHeadBuilder(prefix:)`. Written once per stored head while the memo holds its
    /// facts, which a look-up fetches before any hit.
    func headPrefix(for entry: StoredEntry) -> [UInt8] {
        guard let remembered = byBody[entry.bodyID], remembered.response == entry.head else {
            return Self.prefix(of: entry.head)
        }
        if let prefix = remembered.headPrefix { return prefix }
        let prefix = Self.prefix(of: entry.head)
        remembered.headPrefix = prefix
        return prefix
    }

    private static func prefix(of head: ResponseHead) -> [UInt8] {
        ResponseHeadBuilder.prefix(of: head, skipping: Exchange.isReplacedOnHit)
    }
}
