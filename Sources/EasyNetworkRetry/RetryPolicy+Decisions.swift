#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
import EasyNetworkBackoff
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RetryPolicy {
    /// Whether `error` after `attempt` sends of a `method` request deserves another, by this
    /// policy alone (the host's budget, pause and breaker are the retry engine's to add).
    @inline(never)  // the engine and the interceptor share one copy
    public func shouldRetry(_ error: NetworkError, method: NetworkService.Method, attempt: Int) -> Bool {
        guard attempt < maxAttempts, !error.isCancelled else { return false }
        guard method.isIdempotent || retriesNonIdempotentMethods else { return false }
        switch error.kind {
        case .unacceptableStatus:
            return error.statusCode.map(retryableStatusCodes.contains) ?? false
        case .transport:
            return error.urlError.map { retryableURLErrorCodes.contains($0.code) } ?? false
        default:
            return false
        }
    }

    /// The delay before the retry that follows `attempt` sends, by this policy alone: the
    /// answer's `Retry-After` when present and honoured (up to `maxRetryAfter`,
    /// as the server gave it), else the computed backoff (up to `maxDelay`).
    /// The retry engine adds jitter to a `Retry-After` and never retries while its host is
    /// paused (see `Backpressure`).
    public func delay(after attempt: Int, error: NetworkError, now: Date = Date()) -> TimeInterval {
        if let seconds = retryAfter(in: error, now: now) {
            return seconds
        }
        return backoff(after: attempt, random: Double.random(in: 0...1))
    }

    /// The server's `Retry-After` on `error`, up to `maxRetryAfter`, when this
    /// policy honours it; else `nil`.
    @inline(never)
    func retryAfter(in error: NetworkError, now: Date) -> TimeInterval? {
        guard honorsRetryAfter, let seconds = RetryAfter.seconds(in: error.response, now: now) else { return nil }
        return min(seconds, maxRetryAfter)
    }

    /// Exponential backoff after `attempt` sends: `baseDelay × multiplier^(attempt − 1)`, up
    /// to `maxDelay`, spread by `jitter` around it (`random` in
    /// 0...1 picks the point), and never above `maxDelay`.
    @inline(never)
    func backoff(after attempt: Int, random: Double) -> TimeInterval {
        Backoff.delay(after: attempt, base: baseDelay, multiplier: multiplier, maximum: maxDelay, jitter: jitter, random: random)
    }
}
