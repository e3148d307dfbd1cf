#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// How many retries a host allows across all its requests: a token bucket that failures
/// drain and successes refill, as gRPC's retry throttling has it, with a floor in time so a
/// device that sends little still gets a retry now and then.
///
/// - Every failed attempt the server may have caused (a 5xx, 408 or 429, a timeout, a lost
///   or refused connection; not a device that is offline, not a cancellation) takes one
///   token; every other answer gives back ``tokenRatio``; and the bucket regains a whole token
///   for every ``refillInterval`` seconds passed, whatever happens. It never holds more than
///   ``maxTokens`` nor less than 0.
/// - A retry is allowed only while the bucket holds more than half of ``maxTokens``. First
///   attempts never wait for it, and a token refresh or an interceptor's own retry takes
///   nothing from it (their failures still drain it).
/// - A retry it refuses is no new error: the request fails with its real failure, whose
///   message ends with "retry withheld: the host's retry budget is spent".
///
/// With the default numbers a host stops retrying after 3 failures with no success between
/// (it retries the first two), so a backend that is down sees about one attempt per request
/// from every device; once an outage has emptied the bucket, retries come back after 31
/// successes, or after 2 minutes of the floor.
public struct RetryBudget: Sendable {
    /// The most tokens the bucket holds (it starts full). Retries need more than half.
    public let maxTokens: Double
    /// The tokens an answer that is no failure gives back (0.1: ten successes pay for one
    /// failure).
    public let tokenRatio: Double
    /// Every this many seconds the bucket regains a token, successes or not (the floor);
    /// `.infinity` for no floor.
    public let refillInterval: TimeInterval

    /// A budget; every parameter has the default of ``default``.
    @_alwaysEmitIntoClient  // in the caller: the module makes only the default, folded to constants
    public init(maxTokens: Double = 6, tokenRatio: Double = 0.1, refillInterval: TimeInterval = 30) {
        self.maxTokens = maxTokens.isFinite ? max(0, maxTokens) : 6
        self.tokenRatio = tokenRatio.isFinite ? max(0, tokenRatio) : 0.1
        self.refillInterval = refillInterval.isNaN ? 30 : max(0.001, refillInterval)
    }

    /// 6 tokens, 0.1 back per success, one back every 30 s: retries stop after 3 failures in
    /// a row; from empty they come back after 31 successes or 2 minutes.
    @_alwaysEmitIntoClient  // a fresh value in its callers: no stored global, no one-time initializer
    public static var `default`: RetryBudget { RetryBudget() }
}
