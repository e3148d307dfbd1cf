import Foundation

/// The state of a host's ``RetryBudget``: its tokens and when the floor last refilled
/// them. A value: the engine keeps it under its lock, and tests drive it with their own
/// clock. Times are seconds on a monotonic clock.
struct TokenBucket: Sendable {
    private(set) var budget: RetryBudget
    private(set) var tokens: Double
    private var refilledAt: TimeInterval

    /// A full bucket.
    init(_ budget: RetryBudget, now: TimeInterval) {
        self.budget = budget
        tokens = budget.maxTokens
        refilledAt = now
    }

    /// Another budget's numbers, keeping the tokens it has (up to the new maximum).
    mutating func change(to budget: RetryBudget, now: TimeInterval) {
        refill(now: now)
        self.budget = budget
        tokens = min(tokens, budget.maxTokens)
    }

    /// An answer that is no failure gives back ``RetryBudget/tokenRatio``.
    mutating func recordSuccess(now: TimeInterval) {
        refill(now: now)
        tokens = min(budget.maxTokens, tokens + budget.tokenRatio)
    }

    /// A failure the server may have caused takes a token.
    mutating func recordFailure(now: TimeInterval) {
        refill(now: now)
        tokens = max(0, tokens - 1)
    }

    /// Whether a retry may go now: more than half of the tokens are left.
    mutating func allowsRetry(now: TimeInterval) -> Bool {
        refill(now: now)
        // Above half by more than rounding: 30 successes of 0.1 make 3.0000000000000013.
        return tokens > budget.maxTokens / 2 + 1e-9
    }

    /// The floor: a whole token for every ``RetryBudget/refillInterval`` passed since the
    /// last one (whole, so failures a moment apart are counted exactly: 3 in a row spend the
    /// default budget however fast they come).
    private mutating func refill(now: TimeInterval) {
        let intervals = ((now - refilledAt) / budget.refillInterval).rounded(.down)
        guard intervals >= 1, intervals.isFinite else { return }
        tokens = min(budget.maxTokens, tokens + intervals)
        refilledAt += intervals * budget.refillInterval
    }
}
