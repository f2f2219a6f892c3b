import HTTPWire
import Upstream

extension QueuedRequest {
    /// The request as the replayer sends it: stored fields plus `Idempotency-Key`, the whole body in memory, and
    /// no pacing (the answer's body is read and dropped; only its status matters).
    package func upstreamRequest(timeouts: UpstreamTimeouts) -> UpstreamRequest {
        var fields = headers
        if !fields.contains("Idempotency-Key") {
            fields.add("Idempotency-Key", id)
        }
        return UpstreamRequest(
            method: method, url: url, headers: fields, body: .bytes(body), timeouts: timeouts, paced: false)
    }
}
