#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// The host's ``TokenAuthenticator`` as a `HostFeature`: every request that requires
/// authentication gets a ``TokenPlugIn``.
extension TokenAuthenticator: HostFeature {
    @_alwaysEmitIntoClient package static var order: Int { 20 }  // inlined into its witness, no copy of its own

    @inline(never)  // one copy: its witness calls it
    @usableFromInline package func plugIn(for request: any BaseAPIRequest, settings: HostSettings, service: EasyNetworkService) -> (any RequestPlugIn)? {
        request.requiresAuthentication ? TokenPlugIn(authenticator: self, service: service) : nil
    }
}
