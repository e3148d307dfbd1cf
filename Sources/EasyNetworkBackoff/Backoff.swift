import Foundation

/// Exponential backoff with jitter, the one formula of the two optional modules that wait
/// between attempts and may not import each other: the retry engine (`EasyNetworkRetry`,
/// with a `RetryPolicy`'s numbers) and the outbox (`EasyNetworkOutbox`, with its options').
///
/// `EasyNetworkBackoff` is a target of its own but no product: the modules that use it
/// depend on it, so an SDK that imports neither carries none of it, and the core none.
package enum Backoff {
    /// The wait after `attempt` failed sends: `base × multiplier^(attempt − 1)`, up to
    /// `maximum`, spread by `jitter` (0: none, 1: anything from 0 to twice the delay) around
    /// it, `random` (in 0...1) picking the point; never negative, never above `maximum`.
    package static func delay(after attempt: Int, base: TimeInterval, multiplier: Double, maximum: TimeInterval, jitter: Double, random: Double) -> TimeInterval {
        let exponential = base * pow(multiplier, Double(min(max(0, attempt - 1), 64)))
        let capped = min(exponential, maximum)
        let spread = capped * jitter
        let jittered = capped - spread + min(1, max(0, random)) * spread * 2
        return min(max(0, jittered), maximum)
    }
}
