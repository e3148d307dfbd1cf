#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// What a host's retry engine is set to: the host's policy and the fleet rules. A new
/// engine (the first of this product's host properties set) has the fleet-safe defaults:
/// a ``RetryBudget/default`` budget, ``Backpressure/default``, no circuit breaker.
struct RetrySettings: Sendable {
    var policy = RetryPolicy.none
    var budget: RetryBudget? = .default
    var backpressure: Backpressure? = .default
    var breaker: CircuitBreaker?
}
