#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One download's part in its `RequestExchange`: it carries each attempt itself. The
/// exchange builds, adapts (the token, the interceptors), times, retries and delivers
/// the download like any request; at the transport, this plug-in runs one
/// ``DownloadTransfer`` (which continues from the bytes on disk when it can), tells the
/// attempt's clock of every byte, and reports the last response, the bytes written and
/// the error once.
final class DownloadPlugIn: RequestPlugIn, @unchecked Sendable {
    // unchecked: `transfer` is read and written only under `lock`; the rest is immutable.
    private let lock = Lock()
    /// The last attempt's transfer (it drops its completion when it ends).
    private var transfer: DownloadTransfer?
    private let destination: URL
    private let options: DownloadOptions
    private let transport: NetworkService
    private let progress: @Sendable (_ written: Int64, _ expected: Int64?) -> Void

    init(destination: URL, options: DownloadOptions, transport: NetworkService, progress: @escaping @Sendable (Int64, Int64?) -> Void) {
        self.destination = destination
        self.options = options
        self.transport = transport
        self.progress = progress
    }

    /// How many bytes of an earlier attempt the last attempt asked to resume after.
    var resumedFrom: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return transfer?.resumedFrom ?? 0
    }

    func send(
        _ request: URLRequest,
        activity: any TransferActivity,
        next: (URLRequest, any TransferActivity, @escaping @Sendable (TransportOutcome) -> Void) -> TransportTask?,
        arrived: @escaping @Sendable (TransportOutcome) -> Void
    ) -> TransportTask? {
        let transfer = DownloadTransfer(
            request: request, destination: destination, options: options, transport: transport,
            priority: nil, activity: activity, progress: progress, completion: arrived
        )
        lock.lock()
        self.transfer = transfer
        lock.unlock()
        transfer.start()
        return TransportTask(cancel: { transfer.cancel() })
    }
}
