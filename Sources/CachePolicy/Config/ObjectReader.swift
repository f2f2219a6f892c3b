/// Reads one JSON object of the config, tracking its path and the keys it knows, so every problem
/// names where it is and unknown keys are caught (with the closest known name as a hint).
struct ObjectReader {
    let path: String
    private let members: [String: JSONValue]
    private var known: [String] = []
    private(set) var problems: [ConfigProblem] = []

    init?(_ value: JSONValue, path: String, problems: inout [ConfigProblem]) {
        guard case .object(let members) = value else {
            problems.append(ConfigProblem(path: path, reason: "expected an object, found \(value.kindName)"))
            return nil
        }
        self.path = path
        self.members = members
    }

    func childPath(_ key: String) -> String { "\(path).\(key)" }

    mutating func raw(_ key: String) -> JSONValue? {
        known.append(key)
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    mutating func fail(_ key: String, _ reason: String) {
        problems.append(ConfigProblem(path: childPath(key), reason: reason))
    }

    mutating func string(_ key: String) -> String? {
        guard let value = raw(key) else { return nil }
        guard case .string(let text) = value else {
            fail(key, "expected a string, found \(value.kindName)")
            return nil
        }
        return text
    }

    mutating func bool(_ key: String) -> Bool? {
        guard let value = raw(key) else { return nil }
        guard case .bool(let flag) = value else {
            fail(key, "expected true or false, found \(value.kindName)")
            return nil
        }
        return flag
    }

    mutating func integer(_ key: String, in range: ClosedRange<Int>) -> Int? {
        guard let value = raw(key) else { return nil }
        guard case .number(let number) = value, number.rounded() == number, let integer = Int(exactly: number) else {
            fail(key, "expected a whole number, found \(value.kindName)")
            return nil
        }
        guard range.contains(integer) else {
            fail(key, "\(integer) is out of range (\(range.lowerBound)...\(range.upperBound))")
            return nil
        }
        return integer
    }

    /// `"30s"`, `"5m"`, `"1h"`, `"7d"`, `"250ms"`, or a number of seconds.
    mutating func milliseconds(_ key: String) -> Int64? {
        guard let value = raw(key) else { return nil }
        switch value {
        case .number(let seconds) where seconds >= 0:
            return Int64((seconds * 1000).rounded())
        case .string(let text):
            if let milliseconds = QuantityText.milliseconds(text) { return milliseconds }
            fail(key, "\"\(text)\" is not a duration; write e.g. \"30s\", \"5m\", \"1h\" or \"7d\"")
        default:
            fail(key, "expected a duration such as \"30s\", found \(value.kindName)")
        }
        return nil
    }

    /// `"256MB"`, `"1GiB"`, or a number of bytes.
    mutating func bytes(_ key: String) -> Int64? {
        guard let value = raw(key) else { return nil }
        switch value {
        case .number(let count) where count >= 0 && count.rounded() == count:
            return Int64(count)
        case .string(let text):
            if let bytes = QuantityText.bytes(text) { return bytes }
            fail(key, "\"\(text)\" is not a size; write e.g. \"64KiB\", \"256MB\" or \"1GiB\"")
        default:
            fail(key, "expected a size such as \"256MB\", found \(value.kindName)")
        }
        return nil
    }

    mutating func array(_ key: String) -> [JSONValue]? {
        guard let value = raw(key) else { return nil }
        guard case .array(let elements) = value else {
            fail(key, "expected an array, found \(value.kindName)")
            return nil
        }
        return elements
    }

    mutating func strings(_ key: String) -> [String]? {
        guard let elements = array(key) else { return nil }
        var result: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element else {
                problems.append(
                    ConfigProblem(
                        path: "\(childPath(key))[\(index)]", reason: "expected a string, found \(element.kindName)"))
                continue
            }
            result.append(text)
        }
        return result
    }

    /// Whether the object has `key` with the value null, without marking the key as read.
    func isNull(_ key: String) -> Bool {
        members[key] == .null
    }

    /// Whether the object has `key` with a non-null value, without marking the key as read.
    func has(_ key: String) -> Bool {
        guard let value = members[key] else { return false }
        return value != .null
    }

    /// A duration in whole seconds: `"30s"`, `"5m"`, `"1h"`, `"7d"`, or a number of seconds.
    mutating func seconds(_ key: String) -> Int64? {
        guard let milliseconds = milliseconds(key) else { return nil }
        guard milliseconds % 1000 == 0 else {
            fail(key, "must be whole seconds (cache times are kept in seconds); write e.g. \"2s\"")
            return nil
        }
        return milliseconds / 1000
    }

    /// One of an enumeration's spellings; an unknown one is reported with the valid ones and the closest.
    mutating func choice<Choice: RawRepresentable & CaseIterable>(_ key: String, as _: Choice.Type) -> Choice?
    where Choice.RawValue == String {
        guard let text = string(key) else { return nil }
        if let choice = Choice(rawValue: text) { return choice }
        let names = Choice.allCases.map(\.rawValue)
        var reason = "\"\(text)\" is not one of \(names.joined(separator: ", "))"
        if let closest = names.min(by: { editDistance($0, text) < editDistance($1, text) }),
            editDistance(closest, text) <= max(2, text.count / 3)
        {
            reason += "; did you mean \"\(closest)\"?"
        }
        fail(key, reason)
        return nil
    }

    /// A string or an array of strings (`"host": "a.example"` or `"host": ["a.example", "b.example"]`), each with
    /// its path for messages.
    mutating func oneOrMore(_ key: String) -> [(path: String, text: String)]? {
        guard let value = raw(key) else { return nil }
        switch value {
        case .string(let text):
            return [(childPath(key), text)]
        case .array(let elements):
            var result: [(path: String, text: String)] = []
            for (index, element) in elements.enumerated() {
                let path = "\(childPath(key))[\(index)]"
                guard case .string(let text) = element else {
                    problems.append(ConfigProblem(path: path, reason: "expected a string, found \(element.kindName)"))
                    continue
                }
                result.append((path, text))
            }
            if elements.isEmpty { fail(key, "must not be empty; leave it out to match any") }
            return result
        default:
            fail(key, "expected a string or an array of strings, found \(value.kindName)")
            return nil
        }
    }

    /// An object whose keys are data rather than names (such as JSON Pointers), as its members sorted by key.
    mutating func dictionary(_ key: String) -> [(key: String, value: JSONValue)]? {
        guard let value = raw(key) else { return nil }
        guard case .object(let members) = value else {
            fail(key, "expected an object, found \(value.kindName)")
            return nil
        }
        return members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Records a problem found elsewhere (a nested value this reader does not walk itself).
    mutating func report(_ problem: ConfigProblem) {
        problems.append(problem)
    }

    mutating func object(_ key: String) -> ObjectReader? {
        guard let value = raw(key) else { return nil }
        return ObjectReader(value, path: childPath(key), problems: &problems)
    }

    /// Folds a nested reader's problems (and its unknown keys) into this one.
    mutating func absorb(_ child: ObjectReader) {
        problems += child.finished()
    }

    /// The problems found, plus one per key nobody asked for.
    func finished() -> [ConfigProblem] {
        var all = problems
        for key in members.keys.sorted() where !known.contains(key) {
            var reason = "unknown key"
            if let suggestion = known.min(by: { editDistance($0, key) < editDistance($1, key) }),
                editDistance(suggestion, key) <= max(2, key.count / 3)
            {
                reason += "; did you mean \"\(suggestion)\"?"
            } else if !known.isEmpty {
                reason += "; known keys here: \(Set(known).sorted().joined(separator: ", "))"
            }
            all.append(ConfigProblem(path: childPath(key), reason: reason))
        }
        return all
    }
}

/// Levenshtein distance, case-insensitive, for "did you mean" hints.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.lowercased())
    let b = Array(b.lowercased())
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + [Int](repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
