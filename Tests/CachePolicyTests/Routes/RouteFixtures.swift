import CachePolicy
import HTTPWire
import Testing

/// Config text parsed, with its problems as "path: reason" lines when it does not parse.
func parse(_ json: String) -> Result<Config, ConfigError> {
    Result { () throws(ConfigError) in try Config.parse(Array(json.utf8)) }
}

/// The routes of a config whose `routes` array holds `routes` (JSON objects, comma-separated) over `defaults`.
func table(_ routes: String, defaults: String = "{}", sourceLocation: SourceLocation = #_sourceLocation) -> RouteTable {
    switch parse("{\"defaults\": \(defaults), \"routes\": [\(routes)]}") {
    case .success(let config): return config.routes
    case .failure(let error):
        Issue.record("the config does not parse: \(error)", sourceLocation: sourceLocation)
        return RouteTable()
    }
}

/// The one route a config made of `json` holds.
func route(_ json: String, defaults: String = "{}", sourceLocation: SourceLocation = #_sourceLocation) -> Route {
    table(json, defaults: defaults, sourceLocation: sourceLocation).routes.first ?? Route(name: "unparsed")
}

/// A URL fixture; always valid.
func url(_ text: String) -> AbsoluteURL {
    AbsoluteURL(string: text)!
}
