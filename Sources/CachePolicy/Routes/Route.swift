/// One entry of the config's `routes` (or the defaults): which requests it takes and how they are cached.
///
/// A class, immutable once the config is read: every request picks one and passes it along (look-up, fetch plan,
/// stored entry, stats), and a struct of this many strings and arrays cost a retain and a release of each per copy.
public final class Route: Sendable, Equatable {
    /// The name the access log and `/_larder/stats` use; "default" for the defaults route.
    public let name: String
    public let match: RouteMatch
    public let options: RouteOptions

    public init(name: String, match: RouteMatch = .any, options: RouteOptions = RouteOptions()) {
        self.name = name
        self.match = match
        self.options = options
    }

    /// Equal when they say the same (two configs read from one file have equal routes).
    public static func == (lhs: Route, rhs: Route) -> Bool {
        lhs === rhs || (lhs.name == rhs.name && lhs.match == rhs.match && lhs.options == rhs.options)
    }

    /// The name of the route made of the config's `defaults`, which takes every request no route matches.
    public static let defaultName = "default"
}
