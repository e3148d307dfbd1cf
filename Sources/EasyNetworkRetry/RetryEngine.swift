#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
import EasyNetworkBackoff
#endif
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Time and chance for a host's retry engine, given so tests can drive its rules without
/// waiting and without luck: seconds on a monotonic clock (pauses, cool-downs, the
/// budget's floor), the wall clock (a `Retry-After` given as a date), and a number in 0...1
/// for every jitter. Three closures, not a type: no metadata of its own.
typealias RetryClock = (now: @Sendable () -> TimeInterval, date: @Sendable () -> Date, random: @Sendable () -> Double)

/// A failure the server may have caused: its status, or its transport error's code. A
/// tuple, not a type: no metadata or value witnesses of its own.
typealias HostFailure = (status: Int?, code: URLError.Code?)

/// What one attempt's outcome says about the health of its host: an answer (`answered`:
/// a success, or a `failure`), or nothing about the server (a cancellation, a device that
/// is offline, an error of the device: not answered, no failure).
typealias HostSignal = (answered: Bool, failure: HostFailure?)

/// A host's retry engine, the one place its retries are decided: installed on the host by
/// this product's properties (`host.retryPolicy`, …) and shared by every request of that
/// host, and of no other. It keeps the host's policy and fleet rules and their state (the
/// budget's tokens, the `Retry-After` pause, the breaker; RetryEngine+State.swift) under
/// one lock, and answers four questions: may this attempt go (``admit(url:previous:)``),
/// what did this attempt say about the host (``record(_:response:probe:)``), is this
/// failure retried and when (``decide(_:policy:context:)``), and how long does the host
/// send nothing (``sendingPause``, for the outbox).
///
/// The state is fields of the engine, not values of their own: a type costs its metadata,
/// value witnesses and reflection records.
final class RetryEngine: HostFeature, @unchecked Sendable {
    // unchecked: every `var` is read and written only under `lock`; `clock` is immutable.
    /// After the token (20): the order does not matter to any hook it has.
    static var order: Int { 30 }

    let clock: RetryClock
    private let lock = Lock()
    /// The host's policy, or `nil`: it never retries (`RetryPolicy.none`).
    private var policy: RetryPolicy?
    private var backpressure: Backpressure? = .default
    private var breakerRules: CircuitBreaker?

    // The budget: its rules (`nil`: none) and its bucket, tokens and when the floor last
    // refilled them.
    var budget: RetryBudget? = .default
    var tokens: Double = RetryBudget.default.maxTokens
    var refilledAt: TimeInterval

    // The pause after a server's `Retry-After`: until when the host sends nothing (`nil`:
    // never paused), and the status that asked for it (429, 503).
    var pausedUntil: TimeInterval?
    var pauseStatus = 0

    // The breaker: closed (both off), open until a moment (`openUntil`; the first attempt
    // after it is the probe), or letting one probe through (`probeOut`).
    var openUntil: TimeInterval?
    var probeOut = false
    /// Failures since the last answer that was no failure.
    var failuresInARow = 0
    /// The failure that opened the breaker.
    var opener: HostFailure?

    /// A new engine has the fleet-safe defaults: a ``RetryBudget/default`` budget (full),
    /// ``Backpressure/default``, no circuit breaker, and a policy that never retries.
    init(clock: RetryClock = RetryEngine.systemClock) {
        self.clock = clock
        refilledAt = clock.now()
    }

    /// The system's clocks and random numbers.
    static var systemClock: RetryClock {
        (
            now: { TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000 },
            date: { Date() },
            random: { Double.random(in: 0...1) }
        )
    }

    func plugIn(for request: any BaseAPIRequest, settings: HostSettings, service: EasyNetworkService) -> (any RequestPlugIn)? {
        // The request's own policy, else the host's (one place the plug-in is made).
        var policy = request.retryPolicy
        if policy == nil {
            lock.lock()
            policy = self.policy
            lock.unlock()
        }
        return RetryPlugIn(engine: self, policy: policy)
    }

    // MARK: Settings

    /// The policy and rules now (a request takes its policy when it starts).
    func rules() -> (policy: RetryPolicy?, budget: RetryBudget?, backpressure: Backpressure?, breaker: CircuitBreaker?) {
        lock.lock()
        defer { lock.unlock() }
        return (policy, budget, backpressure, breakerRules)
    }

    /// Changes what is given (`nil`: unchanged; a rule `.some(nil)`: off): a budget keeps
    /// its tokens (a new one starts full), and a rule switched off forgets its state.
    func update(policy: RetryPolicy? = nil, budget: RetryBudget?? = nil, backpressure: Backpressure?? = nil, breaker: CircuitBreaker?? = nil) {
        let now = clock.now()
        lock.lock()
        defer { lock.unlock() }
        if let policy { self.policy = policy }
        if let budget { changeBudget(to: budget, now: now) }
        if let backpressure {
            self.backpressure = backpressure
            if backpressure == nil { (pausedUntil, pauseStatus) = (nil, 0) }
        }
        if let breaker {
            breakerRules = breaker
            if breaker == nil { recordBreakerSuccess() }
        }
    }

    // MARK: The host's state

    /// Seconds until the host may be sent to again (a pause, an open breaker), or `nil`.
    var sendingPause: TimeInterval? {
        let now = clock.now()
        lock.lock()
        defer { lock.unlock() }
        // A rule switched off has forgotten its state: no pause, a closed breaker.
        let paused = pauseLeft(now: now)
        let open = breakerOpenFor(now: now)
        guard paused != nil || open != nil else { return nil }
        return max(paused ?? 0, open ?? 0)
    }

    /// Whether an attempt to `url` may go now: not while the host is paused or its breaker
    /// open (a refused retry ends with `previous`, its real failure, saying so). `probe`:
    /// it goes as the breaker's probe.
    func admit(url: URL?, previous: NetworkError?) -> (refusal: NetworkError?, probe: Bool) {
        let now = clock.now()
        lock.lock()
        let left = pauseLeft(now: now)
        // A paused host asks its breaker nothing (a probe would be spent); without a breaker
        // it is closed, and admits.
        let breaker = left != nil ? (refused: false, probe: false, retryIn: nil) : breakerAdmit(now: now)
        let (status, opener, failures) = (pauseStatus, opener, failuresInARow)
        lock.unlock()
        if let left {
            let wait = Self.seconds(left)
            if let previous {
                return (Self.withheld(previous, "the server asked this host to pause (Retry-After) for " + wait + " more"), false)
            }
            let message = "not sent: the server asked this host to pause (Retry-After); it may be sent to again in " + wait
            return (Self.refusal(message, failure: (status, nil), url: url), false)
        }
        guard breaker.refused else { return (nil, breaker.probe) }
        if let previous { return (Self.withheld(previous, "the host's circuit breaker is open"), false) }
        let when = breaker.retryIn.map { "it lets a request through in " + Self.seconds($0) } ?? "a probe request is out"
        let message = "not sent: the host's circuit breaker is open after " + String(failures) + " failures in a row; " + when
        return (Self.refusal(message, failure: opener, url: url), false)
    }

    /// The error of a request refused before anything was sent: the kind and status (or
    /// transport error) of `failure`, the host's, and `message`.
    @inline(never)
    static func refusal(_ message: String, failure: HostFailure?, url: URL?) -> NetworkError {
        if let status = failure?.status {
            return NetworkError(kind: .unacceptableStatus, message: message, statusCode: status, url: url)
        }
        // `Dictionary()`, not the default `[:]`: a literal compiles a specialization of its own.
        let underlying = failure?.code.map { URLError($0, userInfo: Dictionary()) }
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
            pause(for: asked, status: response.statusCode, rules: rules, now: now, random: random)
        }
        if let failure = signal.failure {
            spendToken(now: now)
            guard let rules = breakerRules else { return }
            if Self.isOutage(failure) {
                recordBreakerFailure(failure, probe: probe, rules: rules, now: now, random: random)
            } else {
                recordBreakerSuccess()  // the server answered (408, 429): no outage
            }
        } else if signal.answered {
            returnToken(now: now)
            if breakerRules != nil { recordBreakerSuccess() }
        } else if probe {
            probeAbandoned(now: now)
        }
    }

    /// The breaker's probe ended without an answer: the next attempt probes.
    func abandonProbe() {
        let now = clock.now()
        lock.lock()
        probeAbandoned(now: now)
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
        let spent = !allowsRetry(now: now)
        let open = openUntil != nil || probeOut  // without a breaker it is closed
        let paused = pauseLeft(now: now)
        let spread = backpressure?.spread ?? 0
        lock.unlock()
        if spent { return .fail(Self.withheld(error, "the host's retry budget is spent")) }
        if open { return .fail(Self.withheld(error, "the host's circuit breaker is open")) }
        var delay: TimeInterval
        if let asked {
            // A pause already spread the host's return; another Retry-After gets its own jitter.
            delay = paused == nil ? asked * (1 + spread * random) : asked
        } else {
            delay = policy.backoff(after: context.attempt, random: random)
        }
        if let paused { delay = max(delay, paused) }
        if let limit = context.request.totalTimeout ?? context.host.totalTimeout, delay > limit {
            return .fail(Self.withheld(
                error, "its wait of " + Self.seconds(delay) + " is longer than the request's totalTimeout of " + Self.seconds(limit)
            ))
        }
        return .retry(after: delay)
    }
}

/// The engine's sentences.
extension RetryEngine {
    /// `error`, unchanged but for its message, which ends with "retry withheld: " and
    /// `reason`: the request ends with its real failure, saying why it was not retried.
    /// The server's message stays in ``NetworkError/serverMessage``, counted in the
    /// sentences unless the host quotes it.
    @inline(never)  // many call sites, one copy
    static func withheld(_ error: NetworkError, _ reason: String) -> NetworkError {
        error.appending("retry withheld: " + reason)
    }

    /// `seconds` for a message: one decimal and " s".
    @inline(never)
    static func seconds(_ seconds: TimeInterval) -> String {
        String(format: "%.1f s", max(0, seconds))
    }
}

/// The one place that sorts outcomes for the budget and the breaker.
extension RetryEngine {
    /// What `outcome` says: its response's status, else its error.
    static func signal(of outcome: TransportOutcome) -> HostSignal {
        let (response, error) = outcome.received
        guard let error else {
            return response.map { signal(status: $0.statusCode) } ?? (false, nil)
        }
        // A streamed transfer typed its own failure (a download's status).
        let typed = error as? NetworkError
        if let status = typed?.statusCode {
            return signal(status: status)
        }
        guard let code = (typed?.urlError ?? error as? URLError)?.code else { return (false, nil) }
        return signal(transport: code)
    }

    /// Whether `failure` counts for the breaker: 5xx answers and transport failures (408
    /// and 429 only drain the budget: the server is answering).
    static func isOutage(_ failure: HostFailure) -> Bool {
        failure.status.map { $0 >= 500 } ?? true
    }

    /// A status: a failure when 5xx, 408 or 429, else a success.
    static func signal(status: Int) -> HostSignal {
        (true, status >= 500 || status == 408 || status == 429 ? (status, nil) : nil)
    }

    /// A transport error: a failure, but for a device that is offline, a cancellation or
    /// an error of the device (nothing about the server).
    static func signal(transport code: URLError.Code) -> HostSignal {
        switch code.rawValue {
        // cancelled, notConnectedToInternet, dataNotAllowed, internationalRoamingOff,
        // callIsActive, cannotFindHost, dnsLookupFailed, userCancelledAuthentication, badURL,
        // unsupportedURL: NSURLError's fixed numbers, compared as integers (not through ten
        // getters of Foundation and `==`).
        case -999, -1009, -1020, -1018, -1019, -1003, -1006, -1012, -1000, -1002:
            return (false, nil)
        default:
            return (true, (nil, code))
        }
    }
}
