extension RouteMatch {
    /// Reads a route's `match`; nil when it holds no condition at all.
    static func read(from reader: inout ObjectReader) -> RouteMatch? {
        var match = RouteMatch()
        for (path, text) in reader.oneOrMore("host") ?? [] {
            if let pattern = HostPattern(text) {
                match.hosts.append(pattern)
            } else {
                reader.report(
                    ConfigProblem(path: path, reason: HostPattern.problem(with: text) ?? "not a host pattern"))
            }
        }
        match.port = reader.integer("port", in: 1...65535)
        for (path, text) in reader.oneOrMore("path") ?? [] {
            if let pattern = PathPattern(text) {
                match.paths.append(pattern)
            } else {
                reader.report(
                    ConfigProblem(path: path, reason: PathPattern.problem(with: text) ?? "not a path pattern"))
            }
        }
        if let methods = reader.strings("methods") {
            for (index, method) in methods.enumerated() {
                let path = "\(reader.childPath("methods"))[\(index)]"
                if let reason = methodProblem(method) {
                    reader.report(ConfigProblem(path: path, reason: reason))
                } else if !match.methods.contains(method) {
                    match.methods.append(method)
                }
            }
            if methods.isEmpty { reader.fail("methods", "must not be empty; leave it out to match any method") }
        }
        if let names = reader.strings("headers") {
            for (index, name) in names.enumerated() {
                if FieldName.isValid(name) {
                    match.headers.append(name)
                } else {
                    reader.report(
                        ConfigProblem(path: "\(reader.childPath("headers"))[\(index)]", reason: FieldName.problem(name))
                    )
                }
            }
        }
        let conditions = ["host", "port", "path", "methods", "headers"]
        return conditions.contains(where: reader.has) ? match : nil
    }

    /// Why `method` cannot be listed, or nil.
    static func methodProblem(_ method: String) -> String? {
        guard FieldName.isValid(method) else { return "\"\(method)\" is not a method name" }
        // RFC 9110 §9.1: methods are case-sensitive, and the standard ones are uppercase.
        if method.utf8.contains(where: { $0 >= 0x61 && $0 <= 0x7A }) {
            return "methods are case-sensitive; write \"\(method.uppercased())\""
        }
        if method == "CONNECT" { return "CONNECT opens a tunnel, which is never cached or routed" }
        return nil
    }
}
