#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// Serializes installing a host's retry engine, so two first settings never make two (a
/// private lock: no state another SDK could reach).
private let engineInstall = Lock()

extension HostConfiguration {
    /// When this host's failed requests are sent again; `.none` (the default) never retries.
    /// A request may bring its own (`BaseAPIRequest.retryPolicy`), which this host then
    /// decides with the same rules.
    ///
    /// Setting it (or any other property of this product) installs the host's retry engine
    /// with the fleet-safe defaults: a ``RetryBudget/default`` budget, ``Backpressure/default``
    /// and no circuit breaker. Set `.none` to let only requests that bring a policy retry.
    public var retryPolicy: RetryPolicy {
        get { feature(RetryEngine.self)?.current.policy ?? .none }
        set { retryEngine().update { $0.policy = newValue } }
    }

    /// The retries this host allows across all its requests (see ``RetryBudget``), or `nil`
    /// for none: every request retries as its policy says, however many fail (the behaviour
    /// before 1.0). ``RetryBudget/default`` once the host retries; `nil` before.
    public var retryBudget: RetryBudget? {
        get { feature(RetryEngine.self)?.current.budget }
        set { retryEngine().update { $0.budget = newValue } }
    }

    /// Whether a server's `Retry-After` pauses every request of this host (see
    /// ``Backpressure``), or `nil`: only the request that got it waits, exactly as long as
    /// it says (the behaviour before 1.0). ``Backpressure/default`` once the host retries;
    /// `nil` before.
    public var backpressure: Backpressure? {
        get { feature(RetryEngine.self)?.current.backpressure }
        set { retryEngine().update { $0.backpressure = newValue } }
    }

    /// This host's circuit breaker (see ``CircuitBreaker``), or `nil` (the default): none.
    public var circuitBreaker: CircuitBreaker? {
        get { feature(RetryEngine.self)?.current.breaker }
        set { retryEngine().update { $0.breaker = newValue } }
    }

    /// The host's retry engine, installed with the defaults when it has none.
    @inline(never)  // the four setters share it
    func retryEngine(clock: RetryClock = .system) -> RetryEngine {
        engineInstall.lock()
        defer { engineInstall.unlock() }
        if let engine = feature(RetryEngine.self) { return engine }
        let engine = RetryEngine(clock: clock)
        setFeature(engine, as: RetryEngine.self)
        return engine
    }
}
