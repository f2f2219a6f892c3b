/// One `msg=access` line of the daemon's logfmt log, as fields, parsed by the tests alone.
struct AccessLogLine {
    var fields: [String: String]

    /// Parses a logfmt line; nil unless it is an access line.
    init?(_ line: String) {
        let fields = KeyValueParameters.parse(Substring(line), skipping: [" "], bareValueEnd: " ")
        guard fields["msg"] == "access" else { return nil }
        self.fields = fields
    }

    subscript(_ key: String) -> String? { fields[key] }
}

extension Daemon {
    /// Every access line logged so far, in order.
    var accessLines: [AccessLogLine] { logLines.compactMap(AccessLogLine.init) }
}
