#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// A host's ``PublicKeyPinning`` as a `HostFeature`: every request gets its ``PinRules``,
/// whose `adapt` refuses what pinning cannot protect before anything is sent; it runs
/// before the token's (order 20), so a refused request never waits for a refresh.
extension PublicKeyPinning: HostFeature {
    @usableFromInline package static var order: Int { 5 }

    @usableFromInline package func plugIn(for request: any BaseAPIRequest, settings: HostSettings, service: EasyNetworkService) -> (any RequestPlugIn)? {
        rules.hosts.isEmpty ? nil : rules
    }
}
