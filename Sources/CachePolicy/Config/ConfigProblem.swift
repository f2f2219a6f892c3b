/// One thing wrong with a config file: where (a JSON path such as `$.routes[2].ttl`) and why.
public struct ConfigProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

/// Every problem found in a config file, reported together so a person can fix them in one go.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [ConfigProblem]

    public init(problems: [ConfigProblem]) {
        self.problems = problems
    }

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
