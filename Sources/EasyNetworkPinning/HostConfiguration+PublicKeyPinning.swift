#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
import EasyNetworkFeatures
#endif
import Foundation

/// Serializes changes of a host's pins, so that the feature and the session's judge never
/// disagree (a private lock: no state another SDK could reach).
private let pinningChange = Lock()

extension HostConfiguration {
    /// The public-key pins of this host's connections, or `nil` (the default): the system's
    /// trust alone. See ``PublicKeyPinning``.
    ///
    /// Set it before the first request. Setting it ends the host's current session
    /// gracefully, so that no connection made before (and never checked against these pins)
    /// is reused; requests already running finish on it.
    @_alwaysEmitIntoClient  // a host setting's accessors (see ARCHITECTURE.md): no modify coroutine in the module
    public var publicKeyPinning: PublicKeyPinning? {
        get { pinning() }
        set { setPinning(newValue) }
    }

    /// The host's pins.
    @usableFromInline
    func pinning() -> PublicKeyPinning? {
        feature(PublicKeyPinning.self)
    }

    /// Installs `pinning` as the host's feature and its session's judge, then renews the session.
    @usableFromInline
    func setPinning(_ pinning: PublicKeyPinning?) {
        pinningChange.lock()
        setFeature(pinning, as: PublicKeyPinning.self)
        setTrustEvaluator(pinning)
        pinningChange.unlock()
        transport.renewSession()
    }
}
