#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Dispatch
import Foundation

/// The typed end of a download's `RequestExchange`: its value is the destination
/// file, in place once the exchange ends without an error.
final class DownloadSink: ExchangeSink {
    private let destination: URL
    private let completion: @Sendable (Result<URL, NetworkError>, RequestMetrics) -> Void

    init(destination: URL, completion: @escaping @Sendable (Result<URL, NetworkError>, RequestMetrics) -> Void) {
        self.destination = destination
        self.completion = completion
    }

    /// The body is on disk already: nothing to map.
    func map(_ response: NetworkResponse, lock: Lock) -> NetworkError? { nil }

    var wantsProvisional: Bool { false }

    var mapsInline: Bool { false }

    func deliverProvisional(_ response: NetworkResponse, on queue: DispatchQueue, lock: Lock) {}

    func deliver(_ error: NetworkError?, metrics: RequestMetrics, lock: Lock) {
        completion(error.map { .failure($0) } ?? .success(destination), metrics)
    }
}
