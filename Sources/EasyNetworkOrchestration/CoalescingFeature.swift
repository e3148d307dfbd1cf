#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// Coalescing as a ``HostFeature``: the host's one ``RequestCoalescer`` takes part in
/// every request that coalesces (its own ``BaseAPIRequest/coalescesIdenticalRequests``,
/// or else the host's `coalescesRequests`, `enabled`).
@usableFromInline
final class CoalescingFeature: HostFeature {
    @_alwaysEmitIntoClient  // inlined into its witness, no copy of its own
    static var order: Int { 10 }
    /// The host's `coalescesRequests`.
    @usableFromInline
    let enabled: Bool
    let coalescer: RequestCoalescer

    /// Coalescing `enabled` or not, with `previous`'s coalescer (requests in flight keep
    /// sharing with new ones), or a new one.
    @usableFromInline @inline(never)  // one copy, not another inside the allocating entry
    init(enabled: Bool, previous: CoalescingFeature?) {
        self.enabled = enabled
        coalescer = previous?.coalescer ?? RequestCoalescer()
    }

    @usableFromInline @inline(never)  // one copy: its witness calls it
    func plugIn(for request: any BaseAPIRequest, settings: HostSettings, service: EasyNetworkService) -> (any RequestPlugIn)? {
        request.coalescesIdenticalRequests ?? enabled ? coalescer : nil
    }
}
