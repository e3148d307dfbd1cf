import Foundation

/// The state of a host's fleet rules, fields of its ``RetryEngine`` changed only under its
/// lock (tests drive these with their own times and numbers). Times are seconds on a
/// monotonic clock.
extension RetryEngine {
    // MARK: The budget's bucket (RetryBudget)

    /// Another budget (`nil`: none): a new one starts full, a changed one keeps the tokens
    /// it has (up to the new maximum).
    func changeBudget(to new: RetryBudget?, now: TimeInterval) {
        if budget == nil {
            tokens = new?.maxTokens ?? 0
            refilledAt = now
        } else {
            refill(now: now)
            tokens = min(tokens, new?.maxTokens ?? 0)
        }
        budget = new
    }

    /// A failure the server may have caused takes a token.
    func spendToken(now: TimeInterval) {
        guard budget != nil else { return }
        refill(now: now)
        tokens = max(0, tokens - 1)
    }

    /// An answer that is no failure gives back ``RetryBudget/tokenRatio``.
    func returnToken(now: TimeInterval) {
        guard let budget else { return }
        refill(now: now)
        tokens = min(budget.maxTokens, tokens + budget.tokenRatio)
    }

    /// Whether a retry may go now: more than half of the tokens are left (always, without
    /// a budget).
    func allowsRetry(now: TimeInterval) -> Bool {
        guard let budget else { return true }
        refill(now: now)
        // Above half by more than rounding: 30 successes of 0.1 make 3.0000000000000013.
        return tokens > budget.maxTokens / 2 + 1e-9
    }

    /// The floor: a whole token for every ``RetryBudget/refillInterval`` passed since the
    /// last one (whole, so failures a moment apart are counted exactly: 3 in a row spend the
    /// default budget however fast they come).
    private func refill(now: TimeInterval) {
        guard let budget else { return }
        let intervals = ((now - refilledAt) / budget.refillInterval).rounded(.down)
        guard intervals >= 1, intervals.isFinite else { return }
        tokens = min(budget.maxTokens, tokens + intervals)
        refilledAt += intervals * budget.refillInterval
    }

    // MARK: The pause (Backpressure)

    /// Pauses the host for `seconds` (cut to `rules.maxRetryAfter`) plus `random` (in 0...1)
    /// times `rules.spread` of that: the return is jittered forward, never earlier than
    /// asked. A pause never shortens one already running. Returns when it ends.
    @discardableResult
    func pause(for seconds: TimeInterval, status: Int, rules: Backpressure, now: TimeInterval, random: Double) -> TimeInterval {
        let asked = min(max(0, seconds), rules.maxRetryAfter)
        let end = now + asked + asked * rules.spread * min(1, max(0, random))
        if end > pausedUntil ?? -.infinity {
            pausedUntil = end
            pauseStatus = status
        }
        return pausedUntil ?? end
    }

    /// Seconds left of the pause at `now`, or `nil` when the host is not paused. A moment
    /// early (50 ms, a timer's slack) counts as ended, so a retry scheduled for the end goes.
    func pauseLeft(now: TimeInterval) -> TimeInterval? {
        guard let until = pausedUntil, until - now > 0.05 else { return nil }
        return until - now
    }

    // MARK: The breaker (CircuitBreaker)

    /// Whether an attempt may go at `now`: it goes (as the probe when the cool-down is
    /// over: it takes the probe's place), or it is refused, the breaker open for
    /// `retryIn` seconds more (`nil`: a probe is out).
    func breakerAdmit(now: TimeInterval) -> (refused: Bool, probe: Bool, retryIn: TimeInterval?) {
        if probeOut { return (true, false, nil) }
        guard let until = openUntil else { return (false, false, nil) }
        if now < until { return (true, false, until - now) }
        openUntil = nil
        probeOut = true
        return (false, true, nil)
    }

    /// Seconds until a probe may go, while open; `nil` otherwise.
    func breakerOpenFor(now: TimeInterval) -> TimeInterval? {
        guard let until = openUntil, until > now else { return nil }
        return until - now
    }

    /// An answer that is no failure closes the breaker, whatever it was doing.
    func recordBreakerSuccess() {
        failuresInARow = 0
        openUntil = nil
        probeOut = false
        opener = nil
    }

    /// A failure: the probe's opens the breaker again; the `threshold`th in a row while
    /// closed opens it; while open, nothing changes. The cool-down is `rules.coolDown` plus
    /// `random` (0...1) times `rules.spread` of it.
    func recordBreakerFailure(_ failure: HostFailure, probe: Bool, rules: CircuitBreaker, now: TimeInterval, random: Double) {
        failuresInARow += 1
        let opens = probeOut ? probe : openUntil == nil && failuresInARow >= rules.failureThreshold
        guard opens else { return }
        opener = failure
        probeOut = false
        openUntil = now + rules.coolDown * (1 + rules.spread * min(1, max(0, random)))
    }

    /// The probe ended without an answer (cancelled, answered from the cache, refused
    /// elsewhere): the next attempt is the probe.
    func probeAbandoned(now: TimeInterval) {
        guard probeOut else { return }
        probeOut = false
        openUntil = now
    }
}
