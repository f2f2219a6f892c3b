import HTTPWire

/// What a request must look like for a route to apply: every condition given must hold; a condition left out
/// holds for every request. Within `hosts`, `paths` and `methods`, any one entry is enough.
public struct RouteMatch: Sendable, Equatable, CustomStringConvertible {
    /// Any of these hosts; empty for any host.
    public var hosts: [HostPattern]
    /// The URL's port, explicit or the scheme's default (80, 443); nil for any port.
    public var port: Int?
    /// Any of these paths; empty for any path.
    public var paths: [PathPattern]
    /// Any of these methods, compared case-sensitively (RFC 9110 §9.1); empty for any method. Listing GET also
    /// admits HEAD, which is answered from the stored GET.
    public var methods: [String]
    /// Request header fields that must all be present, whatever their value; compared case-insensitively.
    public var headers: [String]

    public init(
        hosts: [HostPattern] = [], port: Int? = nil, paths: [PathPattern] = [], methods: [String] = [],
        headers: [String] = []
    ) {
        self.hosts = hosts
        self.port = port
        self.paths = paths
        self.methods = methods
        self.headers = headers
    }

    /// Matches every request: the defaults route's match.
    public static let any = RouteMatch()

    /// Whether `request`, for `url`, meets every condition. Cheapest checks first; nothing is allocated.
    public func matches(_ request: RequestHead, url: AbsoluteURL) -> Bool {
        if let port, url.port != port { return false }
        if !methods.isEmpty && !admits(method: request.method) { return false }
        if !hosts.isEmpty && !hosts.contains(where: { $0.matches(url.host) }) { return false }
        if !paths.isEmpty && !paths.contains(where: { $0.matches(url.path) }) { return false }
        for name in headers where !request.headers.contains(name) { return false }
        return true
    }

    /// Whether `method` is listed, HEAD counting as GET.
    public func admits(method: String) -> Bool {
        methods.contains(method) || (method == "HEAD" && methods.contains("GET"))
    }

    /// `host=*.example.com port=443 path=/v1/* methods=GET,POST headers=X-Api-Key`, for logs and messages.
    public var description: String {
        var parts: [String] = []
        if !hosts.isEmpty { parts.append("host=" + hosts.map(\.text).joined(separator: ",")) }
        if let port { parts.append("port=\(port)") }
        if !paths.isEmpty { parts.append("path=" + paths.map(\.text).joined(separator: ",")) }
        if !methods.isEmpty { parts.append("methods=" + methods.joined(separator: ",")) }
        if !headers.isEmpty { parts.append("headers=" + headers.joined(separator: ",")) }
        return parts.isEmpty ? "any" : parts.joined(separator: " ")
    }
}
