extension RouteOptions {
    /// Reads the option keys of a route or of `defaults` over the current values: a key written replaces that one
    /// value (arrays replace, never append); a key left out keeps it; a key written `null` gets Larder's built-in
    /// value back (for `ttl`, `staleIfError`, `maxStale`, `timeout`: none). Every key is asked for, so an unknown
    /// one gets a "did you mean" hint.
    mutating func read(from reader: inout ObjectReader) {
        let builtIn = RouteOptions()
        if reader.isNull("policy") { policy = builtIn.policy }
        if reader.isNull("ttl") { ttlSeconds = builtIn.ttlSeconds }
        if reader.isNull("staleIfError") { staleIfErrorSeconds = builtIn.staleIfErrorSeconds }
        if reader.isNull("maxStale") { maxStaleSeconds = builtIn.maxStaleSeconds }
        if reader.isNull("timeout") { timeoutMilliseconds = builtIn.timeoutMilliseconds }
        if reader.isNull("errorBackoff") { errorBackoffSeconds = builtIn.errorBackoffSeconds }
        if reader.isNull("clientRefresh") { clientRefresh = builtIn.clientRefresh }
        if reader.isNull("storeAuthorized") { storeAuthorized = builtIn.storeAuthorized }
        if reader.isNull("storeSetCookie") { storeSetCookie = builtIn.storeSetCookie }
        if reader.isNull("key") { key = builtIn.key }
        if reader.isNull("storeIf") { storeIf = builtIn.storeIf }
        if reader.isNull("queue") { queue = builtIn.queue }
        policy = reader.choice("policy", as: RoutePolicy.self) ?? policy
        ttlSeconds = reader.seconds("ttl") ?? ttlSeconds
        staleIfErrorSeconds = reader.seconds("staleIfError") ?? staleIfErrorSeconds
        maxStaleSeconds = reader.seconds("maxStale") ?? maxStaleSeconds
        if let milliseconds = reader.milliseconds("timeout") {
            if milliseconds > 0 {
                timeoutMilliseconds = milliseconds
            } else {
                reader.fail("timeout", "must be more than 0; leave it out to use timeouts.read")
            }
        }
        errorBackoffSeconds = reader.seconds("errorBackoff") ?? errorBackoffSeconds
        clientRefresh = reader.choice("clientRefresh", as: ClientRefresh.self) ?? clientRefresh
        storeAuthorized = reader.bool("storeAuthorized") ?? storeAuthorized
        storeSetCookie = reader.bool("storeSetCookie") ?? storeSetCookie
        if var section = reader.object("key") {
            key.read(from: &section)
            reader.absorb(section)
        }
        if var section = reader.object("storeIf") {
            storeIf.read(from: &section)
            reader.absorb(section)
        }
        queue = reader.bool("queue") ?? queue
    }
}

extension KeyOptions {
    mutating func read(from reader: inout ObjectReader) {
        let builtIn = KeyOptions()
        if reader.isNull("query") { query = builtIn.query }
        if reader.isNull("headers") { headers = builtIn.headers }
        if reader.isNull("body") { body = builtIn.body }
        if reader.isNull("version") { version = builtIn.version }
        if var section = reader.object("query") {
            if section.isNull("sort") { query.sort = builtIn.query.sort }
            if section.isNull("ignore") { query.ignore = builtIn.query.ignore }
            if section.isNull("only") { query.only = builtIn.query.only }
            query.sort = section.bool("sort") ?? query.sort
            if let patterns = NamePattern.read("ignore", from: &section) { query.ignore = patterns }
            if let patterns = NamePattern.read("only", from: &section) { query.only = patterns }
            reader.absorb(section)
        }
        if let names = reader.strings("headers") {
            headers = []
            for (index, name) in names.enumerated() {
                guard FieldName.isValid(name) else {
                    reader.report(
                        ConfigProblem(path: "\(reader.childPath("headers"))[\(index)]", reason: FieldName.problem(name))
                    )
                    continue
                }
                let lowered = name.asciiLowercased
                if !headers.contains(lowered) { headers.append(lowered) }
            }
        }
        body = reader.bool("body") ?? body
        if let text = reader.string("version") {
            if text.isEmpty || !text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
                reader.fail("version", "must be visible ASCII characters without spaces, such as \"v2\"")
            } else {
                version = text
            }
        }
    }
}

extension NamePattern {
    /// An array of query parameter names or globs, each checked.
    static func read(_ key: String, from reader: inout ObjectReader) -> [NamePattern]? {
        guard let texts = reader.strings(key) else { return nil }
        var patterns: [NamePattern] = []
        for (index, text) in texts.enumerated() {
            let path = "\(reader.childPath(key))[\(index)]"
            if text.isEmpty || text.contains("&") || text.contains("=") {
                reader.report(
                    ConfigProblem(path: path, reason: "expected a parameter name or a glob such as \"utm_*\""))
            } else if let pattern = NamePattern(text) {
                patterns.append(pattern)
            } else {
                reader.report(
                    ConfigProblem(path: path, reason: "a glob may be at most \(Glob.maximumLength) characters"))
            }
        }
        return patterns
    }
}

extension StoreConditions {
    mutating func read(from reader: inout ObjectReader) {
        let builtIn = StoreConditions()
        if reader.isNull("status") { statuses = builtIn.statuses }
        if reader.isNull("contentType") { contentTypes = builtIn.contentTypes }
        if reader.isNull("json") { json = builtIn.json }
        if let elements = reader.array("status") {
            var statuses: [Int] = []
            for (index, element) in elements.enumerated() {
                let path = "\(reader.childPath("status"))[\(index)]"
                guard case .number(let number) = element, let status = Int(exactly: number),
                    (200...599).contains(status)
                else {
                    reader.report(ConfigProblem(path: path, reason: "expected a final status code from 200 to 599"))
                    continue
                }
                if status == 206 || status == 304 {
                    // RFC 9111 §3.3, §4.3.4: a partial response is not a complete one, and a 304 updates a stored one.
                    reader.report(ConfigProblem(path: path, reason: "\(status) responses are never stored as such"))
                    continue
                }
                if !statuses.contains(status) { statuses.append(status) }
            }
            if elements.isEmpty {
                reader.fail("status", "lists no status, so nothing would be stored; leave it out for the default")
            }
            self.statuses = statuses
        }
        if let types = reader.strings("contentType") {
            contentTypes = []
            for (index, type) in types.enumerated() {
                if StoreConditions.isMediaRange(type) {
                    contentTypes.append(type.asciiLowercased)
                } else {
                    reader.report(
                        ConfigProblem(
                            path: "\(reader.childPath("contentType"))[\(index)]",
                            reason: "expected a media type such as \"application/json\" or a prefix such as \"text/\""))
                }
            }
        }
        if let members = reader.dictionary("json") {
            json = []
            for (pointer, value) in members {
                if let check = JSONCheck.read(
                    pointer: pointer, value: value, path: reader.childPath("json"), into: &reader)
                {
                    json.append(check)
                }
            }
        }
    }

    /// `type/subtype`, `type/` or `type/*`, each part a token (RFC 9110 §8.3.1).
    static func isMediaRange(_ text: String) -> Bool {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, FieldName.isValid(String(parts[0])) else { return false }
        return parts[1].isEmpty || parts[1] == "*" || FieldName.isValid(String(parts[1]))
    }
}

extension JSONCheck {
    /// One `"pointer": expectation` member of `storeIf.json`.
    static func read(pointer: String, value: JSONValue, path mapPath: String, into reader: inout ObjectReader)
        -> JSONCheck?
    {
        let path = "\(mapPath)[\(CacheStatusField.string(pointer))]"
        if let reason = pointerProblem(pointer) {
            reader.report(ConfigProblem(path: path, reason: reason))
            return nil
        }
        guard case .object(let members) = value else {
            return JSONCheck(pointer: pointer, expectation: .equals(value))
        }
        var problems: [ConfigProblem] = []
        // `value` is an object: the reader always exists.
        var section = ObjectReader(value, path: path, problems: &problems)!
        let type = section.choice("type", as: JSONType.self)
        let present = section.bool("present")
        _ = section.raw("equals")
        reader.absorb(section)
        let given = ["type", "present", "equals"].filter { members[$0] != nil }
        switch given {
        case ["type"]: return type.map { JSONCheck(pointer: pointer, expectation: .type($0)) }
        case ["present"]: return present.map { JSONCheck(pointer: pointer, expectation: .present($0)) }
        // `given` says it is there.
        case ["equals"]: return JSONCheck(pointer: pointer, expectation: .equals(members["equals"]!))
        default:
            // With only unknown keys, their "did you mean" already says what to write.
            if !given.isEmpty || members.isEmpty {
                reader.report(
                    ConfigProblem(
                        path: path,
                        reason:
                            "expected exactly one of \"type\", \"present\" or \"equals\" (to compare with an object)"))
            }
            return nil
        }
    }

    /// Why `pointer` is not a JSON Pointer (RFC 6901 §3), or nil.
    static func pointerProblem(_ pointer: String) -> String? {
        guard pointer.isEmpty || pointer.hasPrefix("/") else {
            return "a JSON Pointer starts with \"/\", e.g. \"/data/items/0\" (\"\" is the whole body)"
        }
        var bytes = pointer.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == 0x7E else { continue }
            let escaped = bytes.next()
            if escaped != 0x30 && escaped != 0x31 { return "\"~\" must be written \"~0\" (and \"/\" in a name \"~1\")" }
        }
        return nil
    }
}

/// Header field names as the config writes them: tokens (RFC 9110 §5.1, §5.6.2).
enum FieldName {
    static func isValid(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
                case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
                default: false
                }
            }
    }

    static func problem(_ text: String) -> String {
        "\"\(text)\" is not a header field name (letters, digits and !#$%&'*+-.^_`|~)"
    }
}
