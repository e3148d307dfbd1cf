#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
import EasyNetworkFeatures
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
    @_alwaysEmitIntoClient  // its callers hold the accessors: the module keeps two functions for the four properties
    public var retryPolicy: RetryPolicy {
        get { retryRules().policy ?? .none }
        set { changeRetryRules(policy: newValue, budget: nil, backpressure: nil, breaker: nil) }
    }

    /// The retries this host allows across all its requests (see ``RetryBudget``), or `nil`
    /// for none: every request retries as its policy says, however many fail (the behaviour
    /// before 1.0). ``RetryBudget/default`` once the host retries; `nil` before.
    @_alwaysEmitIntoClient
    public var retryBudget: RetryBudget? {
        get { retryRules().budget }
        set { changeRetryRules(policy: nil, budget: .some(newValue), backpressure: nil, breaker: nil) }
    }

    /// Whether a server's `Retry-After` pauses every request of this host (see
    /// ``Backpressure``), or `nil`: only the request that got it waits, exactly as long as
    /// it says (the behaviour before 1.0). ``Backpressure/default`` once the host retries;
    /// `nil` before.
    @_alwaysEmitIntoClient
    public var backpressure: Backpressure? {
        get { retryRules().backpressure }
        set { changeRetryRules(policy: nil, budget: nil, backpressure: .some(newValue), breaker: nil) }
    }

    /// This host's circuit breaker (see ``CircuitBreaker``), or `nil` (the default): none.
    @_alwaysEmitIntoClient
    public var circuitBreaker: CircuitBreaker? {
        get { retryRules().breaker }
        set { changeRetryRules(policy: nil, budget: nil, backpressure: nil, breaker: .some(newValue)) }
    }

    /// The host's policy and rules now (`nil` policy: it never retries): no rules before
    /// its retry engine is installed.
    @usableFromInline
    func retryRules() -> (policy: RetryPolicy?, budget: RetryBudget?, backpressure: Backpressure?, breaker: CircuitBreaker?) {
        installedRetryEngine()?.rules() ?? (nil, nil, nil, nil)
    }

    /// Installs the host's retry engine if it has none, then changes what is given (`nil`:
    /// unchanged; a rule `.some(nil)`: off).
    @usableFromInline
    func changeRetryRules(policy: RetryPolicy?, budget: RetryBudget??, backpressure: Backpressure??, breaker: CircuitBreaker??) {
        retryEngine().update(policy: policy, budget: budget, backpressure: backpressure, breaker: breaker)
    }

    /// The host's retry engine, or `nil` before one is installed (one out-of-line copy of
    /// the lookup for its three callers).
    @inline(never)
    func installedRetryEngine() -> RetryEngine? {
        feature(RetryEngine.self)
    }

    /// The host's retry engine, installed with the defaults when it has none.
    func retryEngine(clock: RetryClock = RetryEngine.systemClock) -> RetryEngine {
        engineInstall.lock()
        defer { engineInstall.unlock() }
        if let engine = installedRetryEngine() { return engine }
        let engine = RetryEngine(clock: clock)
        setFeature(engine, as: RetryEngine.self)
        return engine
    }
}
