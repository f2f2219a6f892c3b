import Synchronization

/// Every request an `OriginServer` received, in order, numbering each as it arrives.
final class OriginRequestLog: Sendable {
    private let requests = Mutex<[OriginRequest]>([])

    /// Appends the request with the next sequence number, and returns it numbered.
    func record(_ request: OriginRequest) -> OriginRequest {
        requests.withLock { requests in
            var numbered = request
            numbered.sequence = requests.count + 1
            requests.append(numbered)
            return numbered
        }
    }

    var all: [OriginRequest] { requests.withLock { $0 } }
}
