#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Coalescing as a ``RequestPlugIn``: the host's one ``RequestCoalescer`` takes part in
/// every request that coalesces, and shares GET and HEAD transfers.
extension RequestCoalescer: RequestPlugIn {
    func send(
        _ request: URLRequest,
        activity: any TransferActivity,
        next: (URLRequest, any TransferActivity, @escaping @Sendable (TransportOutcome) -> Void) -> TransportTask?,
        arrived: @escaping @Sendable (TransportOutcome) -> Void
    ) -> TransportTask? {
        guard Self.canCoalesce(request) else { return next(request, activity, arrived) }
        return dataTask(with: request, activity: activity, start: { next(request, $0, $1) }, completion: arrived)
    }
}
