import CachePolicy
import Foundation
import Testing

/// The repository's `config/` directory, found from this file (Tests/CachePolicyTests/Config/ is three levels down).
private let configDirectory: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(4)
    return parts.joined(separator: "/") + "/config"
}()

private func read(_ path: String) throws -> [UInt8] {
    try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
}

/// `config/larder.json` and every file in `config/examples/`.
private let shippedFiles: [String] = {
    let examples = (try? FileManager.default.contentsOfDirectory(atPath: configDirectory + "/examples")) ?? []
    return ["larder.json"] + examples.filter { $0.hasSuffix(".json") }.sorted().map { "examples/" + $0 }
}()

@Suite("Shipped config files")
struct ShippedConfigTests {
    @Test("there is a default config and the three documented examples")
    func filesExist() {
        #expect(
            shippedFiles == [
                "larder.json", "examples/ci-package-cache.json", "examples/development.json",
                "examples/offline-api.json",
            ])
    }

    @Test("every shipped file is a valid config without warnings", arguments: shippedFiles)
    func shippedFileParses(_ name: String) throws {
        let config = try Config.parse(read(configDirectory + "/" + name))
        #expect(config.warnings.isEmpty, "\(config.warnings)")
    }

    @Test("config/larder.json is the built-in default, written out")
    func shippedDefaultIsBuiltIn() throws {
        #expect(try Config.parse(read(configDirectory + "/larder.json")) == Config.default)
    }

    @Test("the JSON Schema names exactly the keys the config reader knows, for every object of every shipped file")
    func schemaMatchesModel() throws {
        let schema = SchemaShapes(try JSONValue.parse(read(configDirectory + "/larder.schema.json")))
        var visited: Set<String> = []
        for name in shippedFiles {
            let document = try JSONValue.parse(read(configDirectory + "/" + name))
            for object in schema.objects(in: document) where object.shape.closed {
                visited.insert(SchemaShapes.normalise(object.path))
                let known = try #require(knownKeys(at: object.path, in: document), "\(name) \(object.path)")
                #expect(known == object.shape.properties, "\(name) \(object.path)")
            }
        }
        // A route's options are the same schema definition as `defaults` (plus `name` and `match`), so either
        // place covers them.
        func kind(_ path: String) -> String {
            path.hasPrefix("$.routes[].") ? "$.defaults." + path.dropFirst("$.routes[].".count) : path
        }
        let described = Set(schema.objectPaths().map(kind))
        #expect(described.subtracting(visited.map(kind)).isEmpty, "no shipped file has these objects to compare")
        #expect(!described.isEmpty)
    }

    /// The keys the reader knows in the object at `path`, as its "unknown key" message lists them when a key far
    /// from all of them is added.
    private func knownKeys(at path: String, in document: JSONValue) -> Set<String>? {
        let stranger = String(repeating: "z", count: 24)
        let changed = SchemaShapes.adding(key: stranger, at: path, in: document, from: "$")
        guard case .failure(let error) = parse(SchemaShapes.render(changed)) else { return nil }
        let prefix = "unknown key; known keys here: "
        guard let problem = error.problems.first(where: { $0.path == SchemaShapes.child(path, stranger, named: true) }),
            problem.reason.hasPrefix(prefix)
        else { return nil }
        return Set(problem.reason.dropFirst(prefix.count).split(separator: ", ").map(String.init))
    }
}

/// Enough of JSON Schema to walk `config/larder.schema.json` beside a config: `$ref`, `properties`,
/// `additionalProperties`, `unevaluatedProperties`, `items`, `oneOf`.
struct SchemaShapes {
    struct Shape {
        var properties: Set<String> = []
        var children: [String: JSONValue] = [:]
        var additional: JSONValue?
        var closed = false
    }

    let root: JSONValue

    init(_ root: JSONValue) {
        self.root = root
    }

    /// Every object of `document` with its path (as the config reader writes paths) and the schema's shape for it.
    func objects(in document: JSONValue) -> [(path: String, shape: Shape)] {
        var found: [(path: String, shape: Shape)] = []
        walk(document, schema: root, path: "$", into: &found)
        return found
    }

    private func walk(
        _ value: JSONValue, schema: JSONValue, path: String, into found: inout [(path: String, shape: Shape)]
    ) {
        switch value {
        case .object(let members):
            guard let shape = shape(of: schema, kind: "object") else { return }
            found.append((path, shape))
            for (key, member) in members {
                let named = shape.children[key] != nil
                guard let child = shape.children[key] ?? shape.additional else { continue }
                walk(member, schema: child, path: SchemaShapes.child(path, key, named: named), into: &found)
            }
        case .array(let elements):
            guard let items = items(of: schema) else { return }
            for (index, element) in elements.enumerated() {
                walk(element, schema: items, path: "\(path)[\(index)]", into: &found)
            }
        default:
            return
        }
    }

    /// The normalised paths of every closed object the schema describes.
    func objectPaths() -> Set<String> {
        var paths: Set<String> = []
        func visit(_ schema: JSONValue, _ path: String) {
            if let shape = shape(of: schema, kind: "object") {
                if shape.closed { paths.insert(path) }
                for (key, child) in shape.children { visit(child, "\(path).\(key)") }
                if let additional = shape.additional { visit(additional, "\(path)[*]") }
            }
            if let items = items(of: schema) { visit(items, "\(path)[]") }
        }
        visit(root, "$")
        return paths
    }

    private func resolve(_ reference: String) -> JSONValue {
        root.value(at: String(reference.dropFirst())) ?? .null
    }

    private func types(of schema: JSONValue) -> [String] {
        switch schema.value(at: "/type") {
        case .string(let type): [type]
        case .array(let types): types.compactMap { if case .string(let type) = $0 { type } else { nil } }
        default: []
        }
    }

    /// The object shape of `schema`, merging `$ref` and `oneOf` branches that describe objects.
    private func shape(of schema: JSONValue, kind: String) -> Shape? {
        var shape = Shape()
        var found = false
        if case .object(let properties)? = schema.value(at: "/properties") {
            found = true
            for (key, child) in properties {
                shape.properties.insert(key)
                shape.children[key] = child
            }
        }
        if types(of: schema).contains(kind) { found = true }
        if schema.value(at: "/additionalProperties") == .bool(false)
            || schema.value(at: "/unevaluatedProperties") == .bool(false)
        {
            shape.closed = true
        }
        if case .object? = schema.value(at: "/additionalProperties") {
            shape.additional = schema.value(at: "/additionalProperties")
        }
        if case .string(let reference)? = schema.value(at: "/$ref"),
            let target = self.shape(of: resolve(reference), kind: kind)
        {
            found = true
            shape.properties.formUnion(target.properties)
            shape.children.merge(target.children) { mine, _ in mine }
            shape.additional = shape.additional ?? target.additional
            shape.closed = shape.closed || target.closed
        }
        if case .array(let branches)? = schema.value(at: "/oneOf") {
            let objects = branches.compactMap { self.shape(of: $0, kind: kind) }.filter {
                !$0.properties.isEmpty || $0.closed
            }
            if !objects.isEmpty {
                found = true
                shape.closed = objects.allSatisfy(\.closed)
                for branch in objects {
                    shape.properties.formUnion(branch.properties)
                    shape.children.merge(branch.children) { mine, _ in mine }
                }
            }
        }
        return found && (kind != "object" || !shape.properties.isEmpty || shape.additional != nil || shape.closed)
            ? shape : nil
    }

    private func items(of schema: JSONValue) -> JSONValue? {
        if let items = schema.value(at: "/items") { return items }
        if case .string(let reference)? = schema.value(at: "/$ref") { return items(of: resolve(reference)) }
        if case .array(let branches)? = schema.value(at: "/oneOf") {
            for branch in branches { if let items = items(of: branch) { return items } }
        }
        return nil
    }

    /// A member's path as the config reader writes it: `.key` for a named key, `["key"]` for data keys.
    static func child(_ path: String, _ key: String, named: Bool) -> String {
        named ? "\(path).\(key)" : "\(path)[\"\(key)\"]"
    }

    /// `$.routes[3].storeIf.json["/a"]` as `$.routes[].storeIf.json[*]`.
    static func normalise(_ path: String) -> String {
        var result = ""
        var rest = Substring(path)
        while let open = rest.firstIndex(of: "[") {
            result += rest[..<open]
            let close = rest[open...].firstIndex(of: "]") ?? rest.endIndex
            result += rest[rest.index(after: open)].isNumber ? "[]" : "[*]"
            rest = close == rest.endIndex ? "" : rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// `document` with `key: true` added to the object at `path`.
    static func adding(key: String, at path: String, in document: JSONValue, from current: String) -> JSONValue {
        switch document {
        case .object(var members):
            if current == path {
                members[key] = .bool(true)
                return .object(members)
            }
            for (name, member) in members {
                for named in [true, false] {
                    let childPath = child(current, name, named: named)
                    if path == childPath || path.hasPrefix(childPath + ".") || path.hasPrefix(childPath + "[") {
                        members[name] = adding(key: key, at: path, in: member, from: childPath)
                    }
                }
            }
            return .object(members)
        case .array(var elements):
            for index in elements.indices {
                let childPath = "\(current)[\(index)]"
                if path == childPath || path.hasPrefix(childPath + ".") || path.hasPrefix(childPath + "[") {
                    elements[index] = adding(key: key, at: path, in: elements[index], from: childPath)
                }
            }
            return .array(elements)
        default:
            return document
        }
    }

    /// JSON text for a value.
    static func render(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number):
            if let integer = Int64(exactly: number) { return String(integer) }
            return String(number)
        case .string(let text):
            var result = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                default: result.unicodeScalars.append(scalar)
                }
            }
            return result + "\""
        case .array(let elements):
            return "[" + elements.map(render).joined(separator: ",") + "]"
        case .object(let members):
            return "{"
                + members.sorted { $0.key < $1.key }.map { render(.string($0.key)) + ":" + render($0.value) }
                .joined(separator: ",") + "}"
        }
    }
}
