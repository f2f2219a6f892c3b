import HTTPWire

/// What a transfer reports, in order: one `head`, any number of `body`, then `end` or `failed`.
/// `failed` may also come first, when no response head arrived.
public enum UpstreamEvent: Sendable {
    case head(ResponseHead)
    case body([UInt8])
    case end
    case failed(UpstreamError)
}
