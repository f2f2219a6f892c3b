import HTTPWire

extension AbsoluteURL {
    /// `scheme://host:port`, the port always written (RFC 6454 §4 origin, serialised with its port), so that
    /// `http://a` and `http://a:80` share a queue.
    var queueOrigin: String {
        // A byte search: `String.contains` with a string argument goes through Foundation's NSString search.
        let host = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        return "\(scheme)://\(host):\(port)"
    }
}
