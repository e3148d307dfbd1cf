#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A host's ``RetryEngine`` in one request: before each attempt it asks the engine whether
/// the host takes it (``admit(attempt:url:)``), tells it what each attempt brought
/// (``received(_:)``), and, asked last after every interceptor passed, lets it decide the
/// retry with the request's policy (``retry(_:context:completion:)``).
final class RetryPlugIn: RequestPlugIn, RequestInterceptor, @unchecked Sendable {
    // unchecked: `probing` and `decided` are read and written only under `lock`.
    private let engine: RetryEngine
    /// The request's own policy, else the host's when the request started (`nil`: none, it
    /// never retries).
    private let policy: RetryPolicy?
    private let lock = Lock()
    /// The attempt out is the breaker's probe.
    private var probing = false
    /// The last failure the engine was asked about, and its attempt.
    private var decided: (attempt: Int, error: NetworkError)?

    init(engine: RetryEngine, policy: RetryPolicy?) {
        self.engine = engine
        self.policy = policy
    }

    var retrier: (any RequestInterceptor)? { self }

    /// Refused while the host is paused or its breaker open: a first attempt with the
    /// host's failure, a retry with its own last failure ("retry withheld").
    func admit(attempt: Int, url: URL?) -> NetworkError? {
        lock.lock()
        let previous = decided.flatMap { $0.attempt == attempt - 1 ? $0.error : nil }
        lock.unlock()
        let (refusal, probe) = engine.admit(url: url, previous: previous)
        if probe {
            lock.lock()
            probing = true
            lock.unlock()
        }
        return refusal
    }

    func received(_ outcome: inout TransportOutcome) {
        engine.record(RetryEngine.signal(of: outcome), response: outcome.received.response, probe: takeProbe())
    }

    func retry(_ error: NetworkError, context: RequestContext, completion: @escaping @Sendable (RetryDecision) -> Void) {
        lock.lock()
        decided = (context.attempt, error)
        lock.unlock()
        guard let policy else { return completion(.pass) }
        completion(engine.decide(error, policy: policy, context: context))
    }

    /// The request ended: a probe that brought no answer (cancelled, say) hands the probe on.
    func end() {
        if takeProbe() { engine.abandonProbe() }
    }

    /// Whether the attempt out was the probe; it is no longer.
    private func takeProbe() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let probe = probing
        probing = false
        return probe
    }
}
