#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// The state of a host's ``CircuitBreaker``: closed (counting failures in a row), open
/// until a moment, or letting one probe through. A value under the engine's lock; times are
/// seconds on a monotonic clock.
struct BreakerState: Sendable {
    enum Phase: Sendable {
        /// Requests go; failures in a row are counted.
        case closed
        /// Nothing goes until then; the first attempt after it is the probe.
        case open(until: TimeInterval)
        /// One probe is out; nothing else goes until its answer.
        case probing
    }

    /// What the breaker says about an attempt.
    enum Admission: Sendable {
        /// It goes.
        case go
        /// It goes as the probe: its answer closes or opens the breaker.
        case probe
        /// It does not go: the breaker is open for this many seconds more (`nil`: a probe is out).
        case refused(retryIn: TimeInterval?)
    }

    private(set) var phase = Phase.closed
    /// Failures since the last answer that was no failure.
    private(set) var failuresInARow = 0
    /// The failure that opened the breaker (its status, or its transport error).
    private(set) var opener: HostSignal.Failure?

    /// Whether the breaker is closed (pattern matching: the library compiles no `==` for
    /// its phases).
    var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }

    /// Whether an attempt may go at `now`; takes the probe's place when the cool-down is over.
    mutating func admit(now: TimeInterval) -> Admission {
        switch phase {
        case .closed:
            return .go
        case .open(let until) where now < until:
            return .refused(retryIn: until - now)
        case .open:
            phase = .probing
            return .probe
        case .probing:
            return .refused(retryIn: nil)
        }
    }

    /// Seconds until a probe may go, while open; `nil` otherwise.
    func openFor(now: TimeInterval) -> TimeInterval? {
        guard case .open(let until) = phase, until > now else { return nil }
        return until - now
    }

    /// An answer that is no failure closes the breaker, whatever it was doing.
    mutating func recordSuccess() {
        failuresInARow = 0
        phase = .closed
        opener = nil
    }

    /// A failure: the probe's opens the breaker again; the `threshold`th in a row while
    /// closed opens it; while open, nothing changes. The cool-down is `rules.coolDown` plus
    /// `random` (0...1) times `rules.spread` of it.
    mutating func recordFailure(_ failure: HostSignal.Failure, probe: Bool, rules: CircuitBreaker, now: TimeInterval, random: Double) {
        failuresInARow += 1
        let opens: Bool
        switch phase {
        case .closed: opens = failuresInARow >= rules.failureThreshold
        case .probing: opens = probe
        case .open: opens = false
        }
        guard opens else { return }
        opener = failure
        phase = .open(until: now + rules.coolDown * (1 + rules.spread * min(1, max(0, random))))
    }

    /// The probe ended without an answer (cancelled, answered from the cache, refused
    /// elsewhere): the next attempt is the probe.
    mutating func probeAbandoned(now: TimeInterval) {
        if case .probing = phase { phase = .open(until: now) }
    }
}
