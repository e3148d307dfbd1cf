import Foundation

/// A host's pause after a server's `Retry-After` (see ``Backpressure``): until when it
/// sends nothing, and the status that asked for it. A value under the engine's lock; times
/// are seconds on a monotonic clock.
struct HostPause: Sendable {
    /// When the host may be sent to again, or `nil` when it never paused.
    private(set) var until: TimeInterval?
    /// The status that asked for the pause (429, 503).
    private(set) var status = 0

    /// Pauses the host for `seconds` (cut to `rules.maxRetryAfter`) plus `random` (in 0...1)
    /// times `rules.spread` of that: the return is jittered forward, never earlier than
    /// asked. A pause never shortens one already running. Returns when it ends.
    @discardableResult
    mutating func pause(for seconds: TimeInterval, status: Int, rules: Backpressure, now: TimeInterval, random: Double) -> TimeInterval {
        let asked = min(max(0, seconds), rules.maxRetryAfter)
        let end = now + asked + asked * rules.spread * min(1, max(0, random))
        if end > until ?? -.infinity {
            until = end
            self.status = status
        }
        return until ?? end
    }

    /// Seconds left of the pause at `now`, or `nil` when the host is not paused. A moment
    /// early (50 ms, a timer's slack) counts as ended, so a retry scheduled for the end goes.
    func remaining(now: TimeInterval) -> TimeInterval? {
        guard let until, until - now > 0.05 else { return nil }
        return until - now
    }
}
