import CCurl

/// Easy handles of finished transfers, kept for the next ones: creating and freeing a handle per request
/// (`curl_easy_init`, `curl_easy_cleanup`) showed up in profiles of the miss path.
///
/// Confinement: used only on the client's loop thread, like the handles themselves.
struct EasyHandlePool {
    /// Enough for the transfers usually running at once; handles beyond it are freed.
    static let maxIdle = 64

    private var idle: [UnsafeMutableRawPointer] = []

    /// A handle with every option at libcurl's default; nil when out of memory.
    mutating func take() -> UnsafeMutableRawPointer? {
        idle.popLast() ?? curl_easy_init()
    }

    /// Takes back a handle that finished its transfer and left the multi handle. `curl_easy_reset` returns every
    /// option to its default (URL, header list, callbacks and their data pointers, `PRIVATE`, `ERRORBUFFER`,
    /// upload settings) and clears the previous transfer's info, progress and authentication state, so nothing
    /// of one request reaches the next; `EasyConfiguration.apply` then sets every option again.
    mutating func reuse(_ handle: UnsafeMutableRawPointer) {
        guard idle.count < EasyHandlePool.maxIdle else {
            curl_easy_cleanup(handle)
            return
        }
        curl_easy_reset(handle)
        idle.append(handle)
    }
}
