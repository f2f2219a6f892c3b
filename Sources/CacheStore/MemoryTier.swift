import Synchronization

/// The memory tier: for each key it holds, every stored variant's metadata and the small bodies, so a hit touches
/// neither SQLite nor the disk. Least-recently-used keys go first when the tier is over `maxBytes`, less what
/// `reserve` set aside for the store's other memory that grows with the cache (the stored-key set).
///
/// A key is held only with its complete variant list, so `variants(forKey:)` may answer from here alone.
/// Writers (the store's writer queue) replace a key's list after each index change and bump `generation`;
/// readers that filled a key from SQLite install it only if no change happened meanwhile, so a slow reader
/// cannot bring back what a writer just replaced.
///
/// All state sits behind one mutex; each critical section is a dictionary look-up and a few list links.
final class MemoryTier: Sendable {
    let maxBytes: Int
    private let state = Mutex(State())

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    /// Sets aside `bytes` of `maxBytes` for memory the tier does not hold but the budget must cover, evicting what
    /// no longer fits.
    func reserve(_ bytes: Int) {
        state.withLock { state in
            state.reserved = min(max(0, bytes), maxBytes)
            state.evict(toFit: maxBytes)
        }
    }

    /// Bytes currently set aside by `reserve`.
    var reservedBytes: Int { state.withLock { $0.reserved } }

    var generation: UInt64 { state.withLock { $0.generation } }

    /// The key's variants, newest first, marking the key used; nil when the tier does not hold the key.
    func variants(forKey key: String) -> [MemoryVariant]? {
        state.withLock { state in
            guard let slot = state.slots[key] else { return nil }
            state.markNewest(slot)
            return state.nodes[slot].variants
        }
    }

    /// What the tier knows of one variant.
    enum Lookup {
        /// The tier does not hold the key: ask the index.
        case keyNotHeld
        /// The tier holds the key, and so every variant it has: this one is not stored.
        case notStored
        case held(MemoryVariant)
    }

    /// One variant, marking its key used.
    func lookup(key: String, variant: String) -> Lookup {
        state.withLock { state in
            guard let slot = state.slots[key] else { return .keyNotHeld }
            state.markNewest(slot)
            guard let held = state.nodes[slot].variants.first(where: { $0.entry.variant == variant }) else {
                return .notStored
            }
            return .held(held)
        }
    }

    /// Installs what a reader loaded from SQLite, unless a writer changed the tier since `generation`.
    func fill(key: String, variants: [MemoryVariant], ifUnchangedSince generation: UInt64) {
        state.withLock { state in
            guard state.generation == generation, state.slots[key] == nil else { return }
            state.insert(key: key, variants: variants, maxBytes: maxBytes)
        }
    }

    /// Attaches a body a reader loaded and verified, if the tier still holds that very body's metadata.
    func attach(body: [UInt8], key: String, variant: String, bodyID: UInt64) {
        state.withLock { state in
            guard let slot = state.slots[key],
                let index = state.nodes[slot].variants.firstIndex(where: {
                    $0.entry.variant == variant && $0.entry.bodyID == bodyID && $0.body == nil
                })
            else { return }
            var variants = state.nodes[slot].variants
            variants[index].body = body
            state.insert(key: key, variants: variants, maxBytes: maxBytes)
        }
    }

    /// A writer's new variant list for `key` (empty: forget the key). Bodies already held for an unchanged
    /// body id are kept; a held list with the same bodies in the same order is left as it is (a batch's new keys
    /// are usually in the tier already, from `publish`, and any refresh since then is newer than `variants`).
    func replace(key: String, with variants: [MemoryVariant]) {
        state.withLock { state in
            state.generation &+= 1
            var merged = variants
            if let slot = state.slots[key] {
                let held = state.nodes[slot].variants
                if !variants.isEmpty, held.lazy.map(\.entry.bodyID).elementsEqual(variants.lazy.map(\.entry.bodyID)) {
                    return
                }
                for index in merged.indices where merged[index].body == nil {
                    merged[index].body = held.first { $0.entry.bodyID == merged[index].entry.bodyID }?.body
                }
            }
            if merged.isEmpty {
                if let slot = state.slots[key] { state.remove(slot) }
            } else {
                state.insert(key: key, variants: merged, maxBytes: maxBytes)
            }
        }
    }

    /// A committed variant ahead of its index write, so that requests waiting for it are answered from here instead
    /// of waiting for the batch. It joins (or replaces its variant in) the key's held list; a key the tier does not
    /// hold is taken only when `keyMayBeStored` is false, since its list must be complete. Returns whether the
    /// variant is now held (it may be too large to keep).
    func publish(_ variant: MemoryVariant, keyMayBeStored: Bool) -> Bool {
        let key = variant.entry.key
        return state.withLock { state in
            var variants: [MemoryVariant] = []
            if let slot = state.slots[key] {
                variants = state.nodes[slot].variants
                variants.removeAll { $0.entry.variant == variant.entry.variant }
            } else if keyMayBeStored {
                return false
            }
            state.generation &+= 1
            // Newest response first; the new row goes before those with the same response time, as its id is larger.
            let position =
                variants.firstIndex { $0.entry.responseTime <= variant.entry.responseTime } ?? variants.endIndex
            variants.insert(variant, at: position)
            state.insert(key: key, variants: variants, maxBytes: maxBytes)
            return state.slots[key] != nil
        }
    }

    /// Applies a refresh (RFC 9111 §4.3.4) to a held variant at once, ahead of the index write.
    func update(key: String, variant: String, _ change: (inout StoredEntry) -> Void) {
        state.withLock { state in
            guard let slot = state.slots[key] else { return }
            state.generation &+= 1
            var variants = state.nodes[slot].variants
            guard let index = variants.firstIndex(where: { $0.entry.variant == variant }) else { return }
            variants[index].updateEntry(change)
            variants.sort(by: MemoryVariant.newerFirst)
            state.insert(key: key, variants: variants, maxBytes: maxBytes)
        }
    }

    func invalidate(keys: some Sequence<String>) {
        state.withLock { state in
            state.generation &+= 1
            for key in keys {
                if let slot = state.slots[key] { state.remove(slot) }
            }
        }
    }

    func removeAll() {
        state.withLock { state in
            let evictions = state.evictions
            state = State()
            state.generation &+= 1
            state.evictions = evictions
        }
    }

    /// (variants held, bytes charged, keys evicted so far).
    func counts() -> (entries: Int, bytes: Int, evictions: Int) {
        state.withLock { ($0.variantCount, $0.bytes, $0.evictions) }
    }

    private struct Node {
        var key: String
        var variants: [MemoryVariant]
        var charge: Int
        var newer: Int
        var older: Int

        /// A key's own heap: its string, its variant array, and its share of `nodes` and `slots`, counted twice over
        /// for the room those tables keep free (a dictionary stays at most 3/4 full, and both double as they grow).
        static func overhead(key: String, variantCount: Int) -> Int {
            let tables = MemoryLayout<Node>.stride + (MemoryLayout<String>.stride + MemoryLayout<Int>.stride) * 4 / 3
            return HeapSize.string(key) + HeapSize.array(of: MemoryVariant.self, count: variantCount) + 2 * tables
        }
    }

    /// Nodes live in an array linked by index (no per-node allocation); freed slots are reused.
    private struct State {
        var slots: [String: Int] = [:]
        var nodes: [Node] = []
        var freeSlots: [Int] = []
        var newest = -1
        var oldest = -1
        var bytes = 0
        var variantCount = 0
        var evictions = 0
        var generation: UInt64 = 0
        var reserved = 0

        mutating func insert(key: String, variants: [MemoryVariant], maxBytes: Int) {
            if let slot = slots[key] { remove(slot) }
            // Filed under the first variant's own key string, so the table, the node and the entry share one buffer.
            let key = variants.first?.entry.key ?? key
            let charge = variants.reduce(Node.overhead(key: key, variantCount: variants.count)) { $0 + $1.charge }
            guard charge <= maxBytes - reserved else { return }
            let node = Node(key: key, variants: variants, charge: charge, newer: -1, older: -1)
            let slot: Int
            if let reused = freeSlots.popLast() {
                slot = reused
                nodes[slot] = node
            } else {
                slot = nodes.count
                nodes.append(node)
            }
            slots[key] = slot
            bytes += charge
            variantCount += variants.count
            link(slot)
            evict(toFit: maxBytes, keeping: slot)
        }

        /// Drops least-recently-used keys (never `keeping`) until the tier is within `maxBytes` less `reserved`.
        mutating func evict(toFit maxBytes: Int, keeping: Int = -1) {
            while bytes > maxBytes - reserved, oldest != -1, oldest != keeping {
                remove(oldest)
                evictions += 1
            }
        }

        mutating func remove(_ slot: Int) {
            unlink(slot)
            slots[nodes[slot].key] = nil
            bytes -= nodes[slot].charge
            variantCount -= nodes[slot].variants.count
            nodes[slot] = Node(key: "", variants: [], charge: 0, newer: -1, older: -1)
            freeSlots.append(slot)
        }

        mutating func markNewest(_ slot: Int) {
            guard newest != slot else { return }
            unlink(slot)
            link(slot)
        }

        private mutating func link(_ slot: Int) {
            nodes[slot].older = newest
            nodes[slot].newer = -1
            if newest != -1 { nodes[newest].newer = slot }
            newest = slot
            if oldest == -1 { oldest = slot }
        }

        private mutating func unlink(_ slot: Int) {
            let newer = nodes[slot].newer
            let older = nodes[slot].older
            if newer != -1 { nodes[newer].older = older } else { newest = older }
            if older != -1 { nodes[older].newer = newer } else { oldest = newer }
            nodes[slot].newer = -1
            nodes[slot].older = -1
        }
    }
}
