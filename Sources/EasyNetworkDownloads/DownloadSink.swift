#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Dispatch
import Foundation

/// The typed end of a download's `RequestExchange`: its value is the destination
/// file. Accepting the download (mapping it) moves the complete bytes into place, so a
/// download the exchange fails (an interceptor's `validate`, its clock) leaves no file
/// at the destination, only the resumable `.partial`.
final class DownloadSink: ExchangeSink {
    private let destination: URL
    private let completion: @Sendable (Result<URL, NetworkError>, RequestMetrics) -> Void

    init(destination: URL, completion: @escaping @Sendable (Result<URL, NetworkError>, RequestMetrics) -> Void) {
        self.destination = destination
        self.completion = completion
    }

    /// The body is on disk already: it only moves into place.
    func map(_ response: NetworkResponse, lock: Lock) -> NetworkError? {
        do {
            try PartialDownload(destination: destination).promote()
            return nil
        } catch {
            return DownloadTransfer.fileError(error, url: response.request.url)
        }
    }

    var mapsInline: Bool { false }

    func deliverProvisional(_ response: NetworkResponse, on queue: DispatchQueue, lock: Lock) {}

    func deliver(_ error: NetworkError?, metrics: RequestMetrics, lock: Lock) {
        completion(error.map { .failure($0) } ?? .success(destination), metrics)
    }
}
