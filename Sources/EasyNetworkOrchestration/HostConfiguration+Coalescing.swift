#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
import EasyNetworkFeatures
#endif
import Foundation

extension HostConfiguration {
    /// Whether identical GET and HEAD requests in flight share one network request
    /// (each caller still gets its own callback; cancelling one caller cancels the
    /// network request only when all have cancelled). Default `false`.
    ///
    /// Setting it, to either value, installs coalescing for the requests that start
    /// afterwards; a request may then decide for itself
    /// (``BaseAPIRequest/coalescesIdenticalRequests``). On a host where it was never
    /// set, requests do not coalesce, whatever they ask:
    ///
    /// ```swift
    /// import EasyNetworkOrchestration
    ///
    /// host.coalescesRequests = true   // or false: only requests that ask coalesce
    /// ```
    @_alwaysEmitIntoClient  // in the program that sets it: the module never reads it
    public var coalescesRequests: Bool {
        get { feature(CoalescingFeature.self)?.enabled ?? false }
        set {
            // The same coalescer stays, so requests in flight keep sharing with new ones.
            setFeature(CoalescingFeature(enabled: newValue, previous: feature(CoalescingFeature.self)), as: CoalescingFeature.self)
        }
    }
}
