#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// Coalescing as a ``HostFeature``: the host's one ``RequestCoalescer`` takes part in
/// every request that coalesces (its own ``BaseAPIRequest/coalescesIdenticalRequests``,
/// or else the host's `coalescesRequests`, `enabled`).
final class CoalescingFeature: HostFeature {
    static var order: Int { 10 }
    /// The host's `coalescesRequests`.
    let enabled: Bool
    let coalescer: RequestCoalescer

    init(enabled: Bool, coalescer: RequestCoalescer) {
        self.enabled = enabled
        self.coalescer = coalescer
    }

    func plugIn(for request: any BaseAPIRequest, settings: HostSettings, service: EasyNetworkService) -> (any RequestPlugIn)? {
        request.coalescesIdenticalRequests ?? enabled ? coalescer : nil
    }
}
