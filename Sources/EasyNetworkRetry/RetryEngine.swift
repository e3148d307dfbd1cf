#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
import EasyNetworkBackoff
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A host's retry engine, the one place its retries are decided: installed on the host by
/// this product's properties (`host.retryPolicy`, …) and shared by every request of that
/// host, and of no other. It keeps the host's policy and fleet rules and the state of its fleet
/// rules (the ``TokenBucket`` of the budget, the ``HostPause`` of `Retry-After`, the
/// ``BreakerState``) under one lock, and answers four questions: may this attempt go
/// (``admit(url:previous:)``), what did this attempt say about the host
/// (``record(_:response:probe:)``), is this failure retried and when
/// (``decide(_:policy:context:)``), and how long does the host send nothing
/// (``sendingPause``, for the outbox).
final class RetryEngine: HostFeature, @unchecked Sendable {
    // unchecked: every `var` is read and written only under `lock`; `clock` is immutable.
    /// After the token (20): the order does not matter to any hook it has.
    static var order: Int { 30 }

    /// What ``admit(url:previous:)`` says.
    enum Admission {
        case go
        /// It goes as the circuit breaker's probe (see ``BreakerState``).
        case probe
        case refused(NetworkError)
    }

    let clock: RetryClock
    private let lock = Lock()
    /// The host's policy, or `nil`: it never retries (`RetryPolicy.none`).
    private var policy: RetryPolicy?
    /// The budget's state, or `nil` when the host has no ``RetryBudget`` (it holds the budget).
    private var bucket: TokenBucket?
    private var backpressure: Backpressure? = .default
    private var breakerRules: CircuitBreaker?
    private var pause = HostPause()
    private var breaker = BreakerState()

    /// A new engine has the fleet-safe defaults: a ``RetryBudget/default`` budget,
    /// ``Backpressure/default``, no circuit breaker, and a policy that never retries.
    init(clock: RetryClock = .system) {
        self.clock = clock
        bucket = TokenBucket(.default, now: clock.now())
    }

    func plugIn(for request: any BaseAPIRequest, settings: HostSettings, service: EasyNetworkService) -> (any RequestPlugIn)? {
        if let own = request.retryPolicy { return RetryPlugIn(engine: self, policy: own) }
        lock.lock()
        defer { lock.unlock() }
        return RetryPlugIn(engine: self, policy: policy)
    }

    // MARK: Settings

    /// The policy and rules now (a request takes its policy when it starts).
    func rules() -> (policy: RetryPolicy?, budget: RetryBudget?, backpressure: Backpressure?, breaker: CircuitBreaker?) {
        lock.lock()
        defer { lock.unlock() }
        return (policy, bucket?.budget, backpressure, breakerRules)
    }

    /// Changes what is given (`nil`: unchanged; a rule `.some(nil)`: off): a budget keeps
    /// its tokens (a new one starts full), and a rule switched off forgets its state.
    func update(policy: RetryPolicy? = nil, budget: RetryBudget?? = nil, backpressure: Backpressure?? = nil, breaker: CircuitBreaker?? = nil) {
        let now = clock.now()
        lock.lock()
        defer { lock.unlock() }
        if let policy { self.policy = policy }
        if let budget {
            if let budget {
                if bucket == nil { bucket = TokenBucket(budget, now: now) } else { bucket?.change(to: budget, now: now) }
            } else {
                bucket = nil
            }
        }
        if let backpressure {
            self.backpressure = backpressure
            if backpressure == nil { pause = HostPause() }
        }
        if let breaker {
            breakerRules = breaker
            if breaker == nil { self.breaker = BreakerState() }
        }
    }

    // MARK: The host's state

    /// Seconds until the host may be sent to again (a pause, an open breaker), or `nil`.
    var sendingPause: TimeInterval? {
        let now = clock.now()
        lock.lock()
        defer { lock.unlock() }
        // A rule switched off has forgotten its state: no pause, a closed breaker.
        let paused = pause.remaining(now: now)
        let open = breaker.openFor(now: now)
        guard paused != nil || open != nil else { return nil }
        return max(paused ?? 0, open ?? 0)
    }

    /// Whether an attempt to `url` may go now: not while the host is paused or its breaker
    /// open (a refused retry ends with `previous`, its real failure, saying so).
    func admit(url: URL?, previous: NetworkError?) -> Admission {
        let now = clock.now()
        lock.lock()
        let left = pause.remaining(now: now)
        // A paused host asks its breaker nothing (a probe would be spent); without a breaker
        // it is closed, and admits.
        let admission = left != nil ? .go : breaker.admit(now: now)
        let (status, opener, failures) = (pause.status, breaker.opener, breaker.failuresInARow)
        lock.unlock()
        let reason: String, message: String, failure: HostSignal.Failure?
        if let left {
            reason = "the server asked this host to pause (Retry-After) for " + NetworkError.seconds(left) + " more"
            message = "not sent: the server asked this host to pause (Retry-After); it may be sent to again in " + NetworkError.seconds(left)
            failure = .status(status)
        } else {
            switch admission {
            case .go: return .go
            case .probe: return .probe
            case .refused(let retryIn):
                reason = "the host's circuit breaker is open"
                let when = retryIn.map { "it lets a request through in " + NetworkError.seconds($0) } ?? "a probe request is out"
                message = "not sent: the host's circuit breaker is open after " + String(failures) + " failures in a row; " + when
                failure = opener
            }
        }
        if let previous { return .refused(previous.withheld(reason)) }
        return .refused(Self.refusal(message, failure: failure, url: url))
    }

    /// The error of a request refused before anything was sent: the kind and status (or
    /// transport error) of `failure`, the host's, and `message`.
    @inline(never)
    static func refusal(_ message: String, failure: HostSignal.Failure?, url: URL?) -> NetworkError {
        if let status = failure?.status {
            return NetworkError(kind: .unacceptableStatus, message: message, statusCode: status, url: url)
        }
        // `Dictionary()`, not the default `[:]`: a literal compiles a specialization of its own.
        let underlying = failure?.transportCode.map { URLError($0, userInfo: Dictionary()) }
        return NetworkError(kind: .transport, message: message, url: url, underlyingError: underlying)
    }

    /// Notes what one attempt said about the host: the budget and the breaker count it, and
    /// a 429 or 503 (``Backpressure/statusCodes``) with a `Retry-After` pauses the host.
    /// `probe`: the attempt was the breaker's probe.
    func record(_ signal: HostSignal, response: HTTPURLResponse?, probe: Bool) {
        let now = clock.now(), random = clock.random()
        lock.lock()
        defer { lock.unlock() }
        if let rules = backpressure, let response, rules.statusCodes.contains(response.statusCode),
           let asked = RetryAfter.seconds(in: response, now: clock.date()), asked > 0 {
            pause.pause(for: asked, status: response.statusCode, rules: rules, now: now, random: random)
        }
        if let failure = signal.failure {
            bucket?.recordFailure(now: now)
            guard let rules = breakerRules else { return }
            if failure.isOutage {
                breaker.recordFailure(failure, probe: probe, rules: rules, now: now, random: random)
            } else {
                breaker.recordSuccess()  // the server answered (408, 429): no outage
            }
        } else if signal.isSuccess {
            bucket?.recordSuccess(now: now)
            if breakerRules != nil { breaker.recordSuccess() }
        } else if probe {
            breaker.probeAbandoned(now: now)
        }
    }

    /// The breaker's probe ended without an answer: the next attempt probes.
    func abandonProbe() {
        let now = clock.now()
        lock.lock()
        breaker.probeAbandoned(now: now)
        lock.unlock()
    }

    /// Whether `error`, the failure of the context's attempt, is retried, and after how
    /// long: the `policy` decides (a request's own, else the host's), then the host's rules
    /// may withhold it (the budget is spent, the breaker is open, or the wait is longer than
    /// the request's `totalTimeout`). A withheld retry fails the request with `error`,
    /// whose message says so. The wait is the policy's backoff, or its server's
    /// `Retry-After` (jittered by ``Backpressure/spread``), and never ends inside the
    /// host's pause.
    func decide(_ error: NetworkError, policy: RetryPolicy, context: RequestContext) -> RetryDecision {
        guard policy.shouldRetry(error, method: context.request.method, attempt: context.attempt) else { return .pass }
        let now = clock.now(), random = clock.random()
        let asked = policy.retryAfter(in: error, now: clock.date())
        lock.lock()
        let spent = bucket?.allowsRetry(now: now) == false
        let open = !breaker.isClosed  // without a breaker it is closed
        let paused = pause.remaining(now: now)
        let spread = backpressure?.spread ?? 0
        lock.unlock()
        if spent { return .fail(error.withheld("the host's retry budget is spent")) }
        if open { return .fail(error.withheld("the host's circuit breaker is open")) }
        var delay: TimeInterval
        if let asked {
            // A pause already spread the host's return; another Retry-After gets its own jitter.
            delay = paused == nil ? asked * (1 + spread * random) : asked
        } else {
            delay = policy.backoff(after: context.attempt, random: random)
        }
        if let paused { delay = max(delay, paused) }
        if let limit = context.request.totalTimeout ?? context.host.totalTimeout, delay > limit {
            return .fail(error.withheld(
                "its wait of " + NetworkError.seconds(delay) + " is longer than the request's totalTimeout of " + NetworkError.seconds(limit)
            ))
        }
        return .retry(after: delay)
    }
}
