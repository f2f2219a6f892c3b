import HTTPWire

/// The fields Larder adds to every response it relays or serves (`Exchange.marks`): its `Via` hop and what the
/// cache did, as `X-Cache` and `Cache-Status` (RFC 9211).
struct ResponseMarks {
    let via: String
    let xCache: String
    let cacheStatus: String

    /// Adds the three fields to `head`: `X-Cache` replaces any from upstream, as it names one cache's verdict; Larder's
    /// `Cache-Status` member follows those of the caches before it (RFC 9211 §2).
    func apply(to head: inout ResponseHead) {
        head.headers.add("Via", via)
        head.headers.set("X-Cache", xCache)
        head.headers.add("Cache-Status", cacheStatus)
    }

    /// Appends the three fields to a head being written, in this order.
    func write(to builder: inout ResponseHeadBuilder) {
        builder.add("Via", via)
        builder.add("X-Cache", xCache)
        builder.add("Cache-Status", cacheStatus)
    }
}
