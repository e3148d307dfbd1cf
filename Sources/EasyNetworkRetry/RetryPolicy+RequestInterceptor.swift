#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// A policy among a host's or a request's interceptors decides like the host's own: with
/// the host's retry engine (its budget, pause and breaker) when the host has one
/// (`host.retryPolicy` or any other property of this product set it up), else by itself,
/// one request at a time.
extension RetryPolicy: RequestInterceptor {
    /// Retries after the policy's delay when `shouldRetry(_:method:attempt:)` says so for
    /// the context's request and attempt (and the host's retry engine, if any, allows it);
    /// passes otherwise.
    public func retry(_ error: NetworkError, context: RequestContext, completion: @escaping @Sendable (RetryDecision) -> Void) {
        if let engine = context.host.installedRetryEngine() {
            return completion(engine.decide(error, policy: self, context: context))
        }
        guard shouldRetry(error, method: context.request.method, attempt: context.attempt) else {
            return completion(.pass)
        }
        completion(.retry(after: delay(after: context.attempt, error: error)))
    }
}
