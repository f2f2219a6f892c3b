/// One entry of the config's `routes` (or the defaults): which requests it takes and how they are cached.
public struct Route: Sendable, Equatable {
    /// The name the access log and `/_larder/stats` use; "default" for the defaults route.
    public var name: String
    public var match: RouteMatch
    public var options: RouteOptions

    public init(name: String, match: RouteMatch = .any, options: RouteOptions = RouteOptions()) {
        self.name = name
        self.match = match
        self.options = options
    }

    /// The name of the route made of the config's `defaults`, which takes every request no route matches.
    public static let defaultName = "default"
}
