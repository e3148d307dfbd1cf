#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// What a host does when its server asks for a pause: an answer with one of
/// ``statusCodes`` (429, 503) and a `Retry-After` (seconds or an HTTP date) stops every
/// request of that host, not only the one that got it, until the time has passed.
///
/// - **Jitter**: the host waits the `Retry-After` plus up to ``spread`` of it more (0.5: the
///   return falls anywhere from 30 to 45 s after a `Retry-After: 30`). A fleet told the same
///   moment then comes back over a window instead of in the same second, and no device
///   comes back before the server asked.
/// - **Bound**: a pause longer than ``maxRetryAfter`` is cut to it (before the jitter).
/// - **Requests started meanwhile fail at once**, nothing sent: with the status that paused
///   the host (`error.statusCode` 503 or 429), `error.attempts` 0 and a message saying when
///   the host may be sent to again. They do not queue up to go out together when the pause
///   ends. A retry never goes out during a pause: a request whose retry falls in one waits
///   for its end, and one whose backoff ended inside a pause that began meanwhile ends with
///   its real failure ("retry withheld").
/// - The outbox (`EasyNetworkOutbox`) delivers nothing to a paused host and counts the wait
///   as no attempt.
public struct Backpressure: Sendable {
    /// The statuses whose `Retry-After` pauses the host. Default 429 and 503.
    public let statusCodes: Set<Int>
    /// The longest pause honoured, in seconds, before the jitter; default 60.
    public let maxRetryAfter: TimeInterval
    /// How much longer than asked the host may wait, as a fraction of the pause, picked at
    /// random per pause: 0 (exactly as asked) to 1; default 0.5.
    public let spread: Double

    /// Backpressure; every parameter has the default of ``default``.
    @_alwaysEmitIntoClient  // in the caller: the module makes only the default
    public init(statusCodes: Set<Int> = [429, 503], maxRetryAfter: TimeInterval = 60, spread: Double = 0.5) {
        self.statusCodes = statusCodes
        self.maxRetryAfter = maxRetryAfter.isNaN ? 60 : max(0, maxRetryAfter)
        self.spread = spread.isNaN ? 0.5 : min(1, max(0, spread))
    }

    /// 429 and 503, up to 60 s, returns spread over +0–50 %.
    @_alwaysEmitIntoClient  // a fresh value in its callers: no stored global, no one-time initializer
    public static var `default`: Backpressure { Backpressure() }
}
