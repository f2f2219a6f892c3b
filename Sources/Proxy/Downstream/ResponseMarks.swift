import HTTPWire

/// The fields Larder adds to every response it relays or serves (`Exchange.decorate`): its `Via` hop and what the
/// cache did, as `X-Cache` and `Cache-Status` (RFC 9211).
struct ResponseMarks {
    let via: String
    let xCache: String
    let cacheStatus: String

    /// Appends the three fields to a head being written, in this order.
    func write(to builder: inout ResponseHeadBuilder) {
        builder.add("Via", via)
        builder.add("X-Cache", xCache)
        builder.add("Cache-Status", cacheStatus)
    }
}
