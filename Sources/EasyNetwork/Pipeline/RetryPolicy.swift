import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When and how often a failed request is sent again: plain data.
///
/// The decisions are made by the `EasyNetworkRetry` product (import it): it sets a
/// host's policy (`host.retryPolicy`), asks the request's policy (else the host's) last,
/// after every interceptor passed (see ``RequestInterceptor/retry(_:context:completion:)``),
/// and adds what a fleet of devices needs (a retry budget per host, a host-wide pause for
/// `Retry-After`, an optional circuit breaker). A request whose ``BaseAPIRequest/retryPolicy``
/// retries (``maxAttempts`` above 1) on a host without it fails before anything is sent, with
/// ``NetworkError/Kind-swift.enum/invalidRequest`` naming the product and the host property.
///
/// A retried request stays one request: its callbacks fire once, with the last
/// outcome, and its error's ``NetworkError/attempts`` says how many sends were made.
/// Cancelling it during a backoff ends it at once.
public struct RetryPolicy: Sendable {
    /// Sends in all, the first included (1 means no retry).
    public var maxAttempts: Int
    /// The delay before the first retry, in seconds.
    public var baseDelay: TimeInterval
    /// The factor the delay grows by for each further retry.
    public var multiplier: Double
    /// The longest backoff the policy computes (exponential, jitter included), in seconds.
    /// It does not shorten a server's `Retry-After`, which ``maxRetryAfter`` bounds:
    /// retrying sooner than the server asked would defeat it. So with
    /// ``honorsRetryAfter`` the longest wait between two attempts is the larger of the two.
    public var maxDelay: TimeInterval
    /// How much of each delay is random, from 0 (none) to 1 (anything from 0 to the
    /// full delay), so clients that failed together do not retry together.
    public var jitter: Double
    /// Statuses worth retrying.
    public var retryableStatusCodes: Set<Int>
    /// Transport errors worth retrying.
    public var retryableURLErrorCodes: Set<URLError.Code>
    /// Whether POST and PATCH are retried too. Off by default: a retried POST may
    /// create a second order.
    public var retriesNonIdempotentMethods: Bool
    /// Whether a `Retry-After` header (seconds or HTTP date) sets the delay in place of the
    /// backoff (bounded by ``maxRetryAfter``, not by ``maxDelay``).
    public var honorsRetryAfter: Bool
    /// The longest `Retry-After` honoured, in seconds, whatever ``maxDelay`` is; a longer
    /// one is cut to this (the retry then comes sooner than the server asked). Lower it,
    /// or turn ``honorsRetryAfter`` off, to bound every wait.
    public var maxRetryAfter: TimeInterval

    /// A policy; every parameter has the default of ``default``.
    @_alwaysEmitIntoClient
    public init(
        maxAttempts: Int = 3,
        baseDelay: TimeInterval = 0.5,
        multiplier: Double = 2,
        maxDelay: TimeInterval = 30,
        jitter: Double = 0.25,
        retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableURLErrorCodes: Set<URLError.Code> = [.timedOut, .networkConnectionLost, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet],
        retriesNonIdempotentMethods: Bool = false,
        honorsRetryAfter: Bool = true,
        maxRetryAfter: TimeInterval = 60
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.multiplier = max(1, multiplier)
        self.maxDelay = max(0, maxDelay)
        self.jitter = min(1, max(0, jitter))
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableURLErrorCodes = retryableURLErrorCodes
        self.retriesNonIdempotentMethods = retriesNonIdempotentMethods
        self.honorsRetryAfter = honorsRetryAfter
        self.maxRetryAfter = max(0, maxRetryAfter)
    }

    /// 3 attempts, 0.5 s then 1 s (±25 %), on 408/429/500/502/503/504 and transient
    /// transport errors, idempotent methods only, `Retry-After` honoured up to 60 s.
    @_alwaysEmitIntoClient
    public static var `default`: RetryPolicy { RetryPolicy() }

    /// Never retries.
    @_alwaysEmitIntoClient
    public static var none: RetryPolicy { RetryPolicy(maxAttempts: 1) }
}
