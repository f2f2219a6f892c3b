import CCurl
import Foundation
import HTTPWire
import Logging
import Synchronization

/// Fetches from origins with one libcurl multi handle on a thread of its own, so connections to
/// origins are reused across all clients.
///
/// Confinement: `multi` and every easy handle are touched only on `thread`; other threads talk to
/// it through `commands` and `curl_multi_wakeup`, which libcurl documents as thread-safe.
public final class UpstreamClient: @unchecked Sendable {
    enum Command {
        case start(UpstreamTransfer)
        case resume(UpstreamTransfer)
        case cancel(UpstreamTransfer)
        case stop
    }

    private let multi: UnsafeMutableRawPointer
    private let commands = Mutex<[Command]>([])
    let checkDestination: @Sendable (DestinationAddress) -> DestinationVerdict
    private let caFile = Mutex<String?>(nil)
    private let logger: Logger
    /// Touched only on `thread`.
    private var handles = EasyHandlePool()

    /// - Parameter checkDestination: consulted for every address before libcurl connects to it.
    public init(
        maxConnections: Int = 256,
        logger: Logger,
        checkDestination: @escaping @Sendable (DestinationAddress) -> DestinationVerdict
    ) {
        UpstreamClient.globalInit
        // curl_multi_init fails only when out of memory, which the process cannot survive anyway.
        multi = curl_multi_init()!
        _ = larder_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, maxConnections)
        self.logger = logger
        self.checkDestination = checkDestination
        let thread = Thread { [self] in run() }
        thread.name = "larder-upstream"
        thread.start()
    }

    private static let globalInit: Void = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }()

    /// The PEM file of CA certificates `https://` origins are verified against from now on; nil for the system's
    /// bundle. Verification itself is never switched off.
    public func trustCertificates(in file: String?) {
        caFile.withLock { $0 = file }
    }

    /// Starts a request. `onEvent` is called on the libcurl thread: hop to your own queue.
    /// `onUploadSpace` is called when a full request-body buffer has room again.
    @discardableResult
    public func start(
        _ request: UpstreamRequest,
        onUploadSpace: (@Sendable () -> Void)? = nil,
        onEvent: @escaping @Sendable (UpstreamEvent) -> Void
    ) -> UpstreamTransfer {
        let transfer = UpstreamTransfer(request: request, client: self, onEvent: onEvent, onUploadSpace: onUploadSpace)
        post(.start(transfer))
        return transfer
    }

    /// Ends the libcurl thread; transfers still running are dropped.
    public func stop() {
        post(.stop)
    }

    func post(_ command: Command) {
        commands.withLock { $0.append(command) }
        curl_multi_wakeup(multi)
    }

    // MARK: The libcurl thread

    private func run() {
        var running: Int32 = 0
        while true {
            let pending = commands.withLock { commands -> [Command] in
                defer { commands.removeAll(keepingCapacity: true) }
                return commands
            }
            for command in pending {
                switch command {
                case .start(let transfer): begin(transfer)
                case .resume(let transfer): resume(transfer)
                case .cancel(let transfer): remove(transfer, result: nil)
                case .stop: return
                }
            }
            curl_multi_perform(multi, &running)
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let result = message.pointee.data.result
                if let transfer = UpstreamClient.transfer(of: easy) {
                    remove(transfer, result: result)
                }
            }
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }

    private static func transfer(of easy: UnsafeMutableRawPointer) -> UpstreamTransfer? {
        var pointer: UnsafeMutableRawPointer?
        _ = larder_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &pointer)
        guard let pointer else { return nil }
        return Unmanaged<UpstreamTransfer>.fromOpaque(pointer).takeUnretainedValue()
    }

    private func begin(_ transfer: UpstreamTransfer) {
        guard let easy = handles.take() else {
            transfer.finish(with: CURLE_OUT_OF_MEMORY)
            return
        }
        transfer.handle = easy
        // Retained until `remove`, so callbacks always find it alive.
        let context = Unmanaged.passRetained(transfer).toOpaque()
        EasyConfiguration.apply(
            transfer.request, to: easy, transfer: transfer, context: context, caFile: caFile.withLock { $0 })
        curl_multi_add_handle(multi, easy)
    }

    private func resume(_ transfer: UpstreamTransfer) {
        guard let handle = transfer.handle else { return }
        let (changed, mask) = transfer.pauseMaskAfterResume()
        if changed { curl_easy_pause(handle, mask) }
    }

    private func remove(_ transfer: UpstreamTransfer, result: CURLcode?) {
        guard let handle = transfer.handle else { return }
        if let result { transfer.finish(with: result) }
        curl_multi_remove_handle(multi, handle)
        if result != nil {
            handles.reuse(handle)
        } else {
            // Cancelled mid-transfer, perhaps paused: not worth trusting to a reset.
            curl_easy_cleanup(handle)
        }
        curl_slist_free_all(transfer.headerList)
        transfer.handle = nil
        transfer.headerList = nil
        Unmanaged.passUnretained(transfer).release()
    }
}
