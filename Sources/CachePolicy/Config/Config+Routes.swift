extension Config {
    /// Reads `defaults` and `routes` into `routes`, with the checks that need a whole route (policy against its
    /// options, match against its options) and the warnings for options that would have no effect.
    mutating func readRoutes(from root: inout ObjectReader) {
        var defaults = RouteOptions()
        if var section = root.object("defaults") {
            defaults.read(from: &section)
            defaults.check(in: &section, match: nil, warnings: &warnings)
            root.absorb(section)
        }
        routes = RouteTable(defaults: Route(name: Route.defaultName, options: defaults))
        guard let elements = root.array("routes") else { return }
        var firstIndexByName: [String: Int] = [:]
        for (index, element) in elements.enumerated() {
            var problems: [ConfigProblem] = []
            guard var reader = ObjectReader(element, path: "\(root.childPath("routes"))[\(index)]", problems: &problems)
            else {
                for problem in problems { root.report(problem) }
                continue
            }
            let name = reader.string("name")
            if let name {
                if let reason = Route.nameProblem(name) {
                    reader.fail("name", reason)
                } else if let earlier = firstIndexByName[name] {
                    reader.fail("name", "\"\(name)\" is already the name of routes[\(earlier)]; names must be unique")
                } else {
                    firstIndexByName[name] = index
                }
            } else if !reader.has("name") {
                reader.fail("name", "required: a name for the access log and /_larder/stats, such as \"api\"")
            }
            var match: RouteMatch?
            if var section = reader.object("match") {
                match = RouteMatch.read(from: &section)
                if match == nil {
                    section.report(
                        ConfigProblem(
                            path: section.path,
                            reason: "needs at least one of host, port, path, methods or headers; "
                                + "requests that no route matches get \"defaults\""))
                }
                reader.absorb(section)
            } else if !reader.has("match") {
                reader.fail("match", "required: which requests the route takes, e.g. {\"host\": \"api.example.com\"}")
            }
            var options = defaults
            options.read(from: &reader)
            options.check(in: &reader, match: match ?? .any, warnings: &warnings)
            if let match, let earlier = routes.routes.first(where: { $0.match == match }) {
                warnings.append(
                    ConfigProblem(
                        path: reader.childPath("match"),
                        reason: "never matches: route \"\(earlier.name)\" has the same match and comes first"))
            }
            root.absorb(reader)
            if let name, let match { routes.routes.append(Route(name: name, match: match, options: options)) }
        }
    }
}

extension Route {
    /// Why `name` cannot name a route, or nil.
    static func nameProblem(_ name: String) -> String? {
        if name == defaultName { return "\"default\" is the name of the defaults route; choose another" }
        let valid = !name.isEmpty && name.utf8.allSatisfy(isNameByte)
        return valid ? nil : "may contain only letters, digits, \"-\", \"_\" and \".\" (it appears in logs and stats)"
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F: true
        default: false
        }
    }
}
