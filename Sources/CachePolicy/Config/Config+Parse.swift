extension Config {
    /// Parses and validates a config file; every problem is reported at once.
    public static func parse(_ bytes: [UInt8]) throws(ConfigError) -> Config {
        var reader = ConfigJSONReader(bytes)
        let document: JSONValue
        do {
            document = try reader.read()
        } catch {
            throw ConfigError(problems: [error])
        }
        var problems = reader.repeatedNames
        guard var root = ObjectReader(document, path: "$", problems: &problems) else {
            throw ConfigError(problems: problems)
        }
        var config = Config()
        config.read(from: &root)
        problems += root.finished()
        if !problems.isEmpty { throw ConfigError(problems: problems) }
        return config
    }

    private mutating func read(from root: inout ObjectReader) {
        // The schema editors check the file against (`config/larder.schema.json`); nothing for Larder.
        _ = root.string("$schema")
        if let text = root.string("listen") {
            if let address = ListenAddress(text) {
                listen = address
            } else {
                root.fail("listen", "\"\(text)\" is not HOST:PORT (e.g. \"127.0.0.1:3128\" or \"[::1]:3128\")")
            }
        }
        if let ranges = root.strings("allow") { allow = Self.cidrs(ranges, key: "allow", in: &root) }
        if let ranges = root.strings("denyDestinations") {
            denyDestinations = Self.cidrs(ranges, key: "denyDestinations", in: &root)
        }
        if let elements = root.array("connectPorts") {
            connectPorts = []
            for (index, element) in elements.enumerated() {
                guard case .number(let number) = element, let port = Int(exactly: number), (1...65535).contains(port)
                else {
                    root.fail("connectPorts[\(index)]", "expected a port number from 1 to 65535")
                    continue
                }
                connectPorts.append(port)
            }
        }
        if let name = root.string("via") {
            if name.isEmpty || name.contains(where: { $0 == " " || $0 == "," }) {
                root.fail("via", "must be one token without spaces or commas")
            } else {
                viaName = name
            }
        }
        if var log = root.object("log") {
            if let level = log.string("level") {
                if Self.logLevels.contains(level) {
                    logLevel = level
                } else {
                    log.fail("level", "\"\(level)\" is not one of \(Self.logLevels.joined(separator: ", "))")
                }
            }
            accessLog = log.bool("access") ?? accessLog
            root.absorb(log)
        }
        if var admin = root.object("admin") {
            if let token = admin.string("token") {
                if token.utf8.count < 16 || token.contains(where: { $0 == " " || $0 == "\t" }) {
                    admin.fail("token", "use at least 16 characters without spaces (e.g. the output of `openssl rand -hex 16`)")
                } else {
                    adminToken = token
                }
            }
            root.absorb(admin)
        }
        if var tls = root.object("tls") {
            if let path = tls.string("caFile") {
                if path.hasPrefix("/") {
                    tlsCAFile = path
                } else {
                    tls.fail("caFile", "use an absolute path to a PEM file of CA certificates")
                }
            }
            root.absorb(tls)
        }
        if var section = root.object("timeouts") {
            timeouts.headerMilliseconds = section.milliseconds("header") ?? timeouts.headerMilliseconds
            timeouts.idleMilliseconds = section.milliseconds("idle") ?? timeouts.idleMilliseconds
            timeouts.connectMilliseconds = section.milliseconds("connect") ?? timeouts.connectMilliseconds
            timeouts.readMilliseconds = section.milliseconds("read") ?? timeouts.readMilliseconds
            timeouts.drainMilliseconds = section.milliseconds("drain") ?? timeouts.drainMilliseconds
            timeouts.tunnelIdleMilliseconds = section.milliseconds("tunnelIdle") ?? timeouts.tunnelIdleMilliseconds
            root.absorb(section)
        }
        if var section = root.object("cache") {
            if let directory = section.string("directory") {
                if directory.isEmpty {
                    section.fail("directory", "must not be empty; leave it out for the default")
                } else {
                    cache.directory = directory
                }
            }
            if var memory = section.object("memory") {
                cache.memoryMaxBytes = memory.bytes("maxBytes") ?? cache.memoryMaxBytes
                section.absorb(memory)
            }
            if var disk = section.object("disk") {
                cache.diskMaxBytes = disk.bytes("maxBytes") ?? cache.diskMaxBytes
                section.absorb(disk)
            }
            cache.maxObjectSize = section.bytes("maxObjectSize") ?? cache.maxObjectSize
            if let cap = section.milliseconds("heuristicMaxAge") { cache.heuristicMaxAgeSeconds = cap / 1000 }
            cache.coalesceWaitMilliseconds = section.milliseconds("coalesceWait") ?? cache.coalesceWaitMilliseconds
            root.absorb(section)
        }
        readRoutes(from: &root)
        if var section = root.object("queue") {
            if let size = section.bytes("maxBodySize") {
                if size > 0 {
                    queue.maxBodySize = size
                } else {
                    section.fail("maxBodySize", "must be more than 0 bytes")
                }
            }
            queue.maxAttempts = section.integer("maxAttempts", in: 1...1000) ?? queue.maxAttempts
            if let seconds = section.seconds("maxAge") {
                if seconds > 0 { queue.maxAgeSeconds = seconds } else { section.fail("maxAge", "must be at least 1s") }
            }
            queue.backoffBaseMilliseconds = section.milliseconds("backoffBase") ?? queue.backoffBaseMilliseconds
            queue.backoffMaxMilliseconds = section.milliseconds("backoffMax") ?? queue.backoffMaxMilliseconds
            if queue.backoffMaxMilliseconds < queue.backoffBaseMilliseconds {
                section.fail("backoffMax", "must be at least backoffBase")
            }
            root.absorb(section)
        }
        if var section = root.object("limits") {
            limits.maxConnections = section.integer("maxConnections", in: 1...1_000_000) ?? limits.maxConnections
            if let bytes = section.bytes("requestLine") { limits.maxRequestLineBytes = Int(bytes) }
            if let bytes = section.bytes("headers") { limits.maxHeaderBytes = Int(bytes) }
            root.absorb(section)
        }
    }

    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    private static func cidrs(_ texts: [String], key: String, in reader: inout ObjectReader) -> [CIDR] {
        var ranges: [CIDR] = []
        for (index, text) in texts.enumerated() {
            if let range = CIDR(text) {
                ranges.append(range)
            } else {
                reader.fail(
                    "\(key)[\(index)]", "\"\(text)\" is not an address range such as \"127.0.0.0/8\" or \"::1/128\"")
            }
        }
        return ranges
    }
}
