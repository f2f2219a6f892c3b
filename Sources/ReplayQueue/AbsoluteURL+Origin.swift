import HTTPWire

extension AbsoluteURL {
    /// `scheme://host:port`, the port always written (RFC 6454 §4 origin, serialised with its port), so that
    /// `http://a` and `http://a:80` share a queue.
    var queueOrigin: String {
        let host = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(host):\(port)"
    }
}
