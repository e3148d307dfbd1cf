import Foundation

/// An optional feature of a host (the cache, coalescing, the token), installed by the
/// module that owns it through a host property of its own (`host.responseCache`, …)
/// and stored in the host's settings by its type (`HostConfiguration.feature(_:)`, in `EasyNetworkFeatures`).
/// The core never names a feature: per request, the host's installed features are
/// asked in ``order`` for their part (``plugIn(for:settings:service:)``).
@usableFromInline
package protocol HostFeature: AnyObject, Sendable {
    /// Where the feature's plug-in runs among the others, lowest first: the cache 0,
    /// coalescing 10, the token 20.
    static var order: Int { get }
    /// The feature's part in `request`, or `nil` when it takes no part.
    func plugIn(for request: any BaseAPIRequest, settings: HostSettings, service: EasyNetworkService) -> (any RequestPlugIn)?
    /// Seconds until the host may be sent to again (the retry engine: a server's pause, an
    /// open circuit breaker), or `nil` when it may be now.
    var sendingPause: TimeInterval? { get }
}

extension HostFeature {
    @_alwaysEmitIntoClient
    package var sendingPause: TimeInterval? { nil }
}

extension HostConfiguration {
    /// Seconds until this host may be sent to again, as its features say (the longest), or
    /// `nil`: what the outbox waits for before a delivery, without counting an attempt.
    @_alwaysEmitIntoClient
    package var sendingPause: TimeInterval? {
        var longest: TimeInterval?
        for feature in snapshot().features {  // a loop: `reduce` compiles a closure of its own
            if let pause = feature.sendingPause { longest = max(longest ?? 0, pause) }
        }
        return longest
    }
}
