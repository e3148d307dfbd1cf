#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// The host's ``ResponseCache`` as a `HostFeature`: every request whose cache policy
/// (its own, or the host's `HostConfiguration/cachePolicy`) is not `.networkOnly`
/// gets a ``CachePlugIn``. The cache is the feature itself (no wrapper object).
extension ResponseCache: HostFeature {
    @_alwaysEmitIntoClient package static var order: Int { 0 }  // inlined into its witness, no copy of its own

    @usableFromInline package func plugIn(for request: any BaseAPIRequest, settings: HostSettings, service: EasyNetworkService) -> (any RequestPlugIn)? {
        let policy = request.cachePolicy ?? settings.tunables.cachePolicy
        if case .networkOnly = policy { return nil }  // a match: no equality of policies compiled
        return CachePlugIn(cache: self, policy: policy, settings: settings)
    }
}
