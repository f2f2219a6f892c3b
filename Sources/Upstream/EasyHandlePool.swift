import CCurl

/// Easy handles of finished transfers, kept for the next ones: creating and freeing a handle per request
/// (`curl_easy_init`, `curl_easy_cleanup`) showed up in profiles of the miss path.
///
/// A handle comes back with its options as the last transfer left them, not `curl_easy_reset`: a reset returns the
/// receive buffer to libcurl's default size, so the next transfer's `CURLOPT_BUFFERSIZE` freed it and allocated 64 KiB
/// afresh, and that allocation, with the free-list consolidation it set off in malloc, was a tenth of a miss's CPU.
/// `EasyConfiguration.apply` sets every per-request option on every transfer, each to its default when unused, so
/// nothing of one request reaches the next. Only a changed CA file forces a reset, since "libcurl's default CA
/// bundle" cannot be set back by value.
///
/// Confinement: used only on the client's loop thread, like the handles themselves.
struct EasyHandlePool {
    /// Enough for the transfers usually running at once; handles beyond it are freed.
    static let maxIdle = 64

    private var idle: [(handle: UnsafeMutableRawPointer, caFile: String?)] = []

    /// A handle for a transfer trusting `caFile`, and whether it is new (every option at libcurl's default), or
    /// nil when out of memory.
    mutating func take(caFile: String?) -> (handle: UnsafeMutableRawPointer, isNew: Bool)? {
        guard let last = idle.popLast() else { return curl_easy_init().map { ($0, true) } }
        guard last.caFile == caFile else {
            curl_easy_reset(last.handle)
            return (last.handle, true)
        }
        return (last.handle, false)
    }

    /// Takes back a handle that finished its transfer and left the multi handle.
    mutating func reuse(_ handle: UnsafeMutableRawPointer, caFile: String?) {
        guard idle.count < EasyHandlePool.maxIdle else {
            curl_easy_cleanup(handle)
            return
        }
        idle.append((handle, caFile))
    }
}
