/// Config text for policy tests: routes written as JSON objects, so each test shows the route it exercises.
enum PolicyConfig {
    /// A config with `routes` (each a JSON object's text) in order, and `defaults` (a JSON object's text) when given.
    static func routes(_ routes: [String], defaults: String? = nil) -> String {
        var members = [#""routes": [\#(routes.joined(separator: ",\n"))]"#]
        if let defaults { members.append(#""defaults": \#(defaults)"#) }
        return "{" + members.joined(separator: ",\n") + "}"
    }

    /// A config with one route named `name` that takes every request (`"path": "/"`), with `options`: the route's
    /// other members as JSON text, such as `"policy": "cache-first", "ttl": "60s"`.
    static func everything(_ options: String, name: String = "r") -> String {
        routes([#"{"name": "\#(name)", "match": {"path": "/"}, \#(options)}"#])
    }
}
