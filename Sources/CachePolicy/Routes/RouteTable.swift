import HTTPWire

/// The config's routes in order, and the defaults route for every request none of them matches.
public struct RouteTable: Sendable, Equatable {
    /// Tried in order; the first that matches decides.
    public var routes: [Route]
    /// Named "default"; its options are the config's `defaults`.
    public var defaults: Route

    public init(routes: [Route] = [], defaults: Route = Route(name: Route.defaultName)) {
        self.routes = routes
        self.defaults = defaults
    }

    /// The first route whose match holds for `request` to `url`, else the defaults route.
    public func route(for request: RequestHead, url: AbsoluteURL) -> Route {
        for route in routes where route.match.matches(request, url: url) { return route }
        return defaults
    }

    /// A route by name (the defaults route is "default"), for the admin endpoints and stats.
    public func route(named name: String) -> Route? {
        name == defaults.name ? defaults : routes.first { $0.name == name }
    }
}
