/// How many requests one origin has in the queue, by state.
public struct OriginDepth: Sendable, Equatable {
    public var pending: Int
    public var held: Int
    public var dead: Int

    public init(pending: Int = 0, held: Int = 0, dead: Int = 0) {
        self.pending = pending
        self.held = held
        self.dead = dead
    }
}
