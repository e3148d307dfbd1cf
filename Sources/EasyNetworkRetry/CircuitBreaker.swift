#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// A host's circuit breaker (opt-in, `host.circuitBreaker`): after ``failureThreshold``
/// failures in a row (5xx answers, timeouts, lost or refused connections; not a device that
/// is offline), the host sends nothing for a cool-down, then lets one request through as a
/// probe: its success closes the breaker, its failure opens it for another cool-down.
///
/// - While it is open, or while the probe is out, a request fails at once, nothing sent,
///   with the kind and status (or transport error) of the failure that opened it,
///   `error.attempts` 0, and a message saying so; a retry is withheld.
/// - The cool-down is ``coolDown`` plus up to ``spread`` of it more, at random, so the
///   probes of a fleet do not arrive together.
/// - Any answer that is no failure closes it, a request's that was in flight too.
/// - The outbox (`EasyNetworkOutbox`) delivers nothing to an open host and counts the wait
///   as no attempt.
///
/// Off by default: it refuses requests the app asked for on the strength of other
/// requests' failures, which only the SDK knows it can afford; the retry budget alone keeps
/// a fleet's retries from multiplying its load.
public struct CircuitBreaker: Sendable {
    /// Failures in a row that open the breaker; default 5.
    public let failureThreshold: Int
    /// Seconds the host stays open before a probe, before the jitter; default 5.
    public let coolDown: TimeInterval
    /// How much longer the cool-down may be, as a fraction of it, picked at random each time
    /// it opens: 0 to 1; default 0.5.
    public let spread: Double

    /// A breaker; every parameter has the default of ``default``.
    @_alwaysEmitIntoClient  // in the caller: the module makes none
    public init(failureThreshold: Int = 5, coolDown: TimeInterval = 5, spread: Double = 0.5) {
        self.failureThreshold = max(1, failureThreshold)
        self.coolDown = coolDown.isNaN ? 5 : max(0, coolDown)
        self.spread = spread.isNaN ? 0.5 : min(1, max(0, spread))
    }

    /// Opens after 5 failures in a row, probes after 5 to 7.5 s.
    @_alwaysEmitIntoClient  // a fresh value in its callers: no stored global, no one-time initializer
    public static var `default`: CircuitBreaker { CircuitBreaker() }
}
