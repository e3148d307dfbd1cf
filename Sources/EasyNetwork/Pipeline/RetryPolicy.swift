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
    // One reference, not ten fields: the core carries no value witnesses copying two sets.
    // A `let`: the setters, emitted into the client, replace the whole policy with a new
    // box (the core has one getter, no setter or modify).
    @usableFromInline let box: Box

    @usableFromInline
    init(box: Box) {
        self.box = box
    }

    @usableFromInline
    final class Box: Sendable {
        // One stored tuple, not ten properties: the core emits one getter, not ten, and
        // its type metadata and field records describe one field.
        @usableFromInline let values: (
            maxAttempts: Int, baseDelay: TimeInterval, multiplier: Double, maxDelay: TimeInterval, jitter: Double,
            retryableStatusCodes: Set<Int>, retryableURLErrorCodes: Set<URLError.Code>,
            retriesNonIdempotentMethods: Bool, honorsRetryAfter: Bool, maxRetryAfter: TimeInterval
        )

        @usableFromInline
        init(maxAttempts: Int, baseDelay: TimeInterval, multiplier: Double, maxDelay: TimeInterval, jitter: Double, retryableStatusCodes: Set<Int>, retryableURLErrorCodes: Set<URLError.Code>, retriesNonIdempotentMethods: Bool, honorsRetryAfter: Bool, maxRetryAfter: TimeInterval) {
            values = (
                maxAttempts, baseDelay, multiplier, maxDelay, jitter, retryableStatusCodes, retryableURLErrorCodes,
                retriesNonIdempotentMethods, honorsRetryAfter, maxRetryAfter
            )
        }

        /// A copy with the values given changed (every setter of the policy makes one).
        @_alwaysEmitIntoClient
        func with(
            maxAttempts: Int? = nil,
            baseDelay: TimeInterval? = nil,
            multiplier: Double? = nil,
            maxDelay: TimeInterval? = nil,
            jitter: Double? = nil,
            retryableStatusCodes: Set<Int>? = nil,
            retryableURLErrorCodes: Set<URLError.Code>? = nil,
            retriesNonIdempotentMethods: Bool? = nil,
            honorsRetryAfter: Bool? = nil,
            maxRetryAfter: TimeInterval? = nil
        ) -> Box {
            Box(
                maxAttempts: maxAttempts ?? values.maxAttempts,
                baseDelay: baseDelay ?? values.baseDelay,
                multiplier: multiplier ?? values.multiplier,
                maxDelay: maxDelay ?? values.maxDelay,
                jitter: jitter ?? values.jitter,
                retryableStatusCodes: retryableStatusCodes ?? values.retryableStatusCodes,
                retryableURLErrorCodes: retryableURLErrorCodes ?? values.retryableURLErrorCodes,
                retriesNonIdempotentMethods: retriesNonIdempotentMethods ?? values.retriesNonIdempotentMethods,
                honorsRetryAfter: honorsRetryAfter ?? values.honorsRetryAfter,
                maxRetryAfter: maxRetryAfter ?? values.maxRetryAfter
            )
        }
    }

    /// Sends in all, the first included (1 means no retry).
    @_alwaysEmitIntoClient
    public var maxAttempts: Int {
        get { box.values.maxAttempts }
        set { self = RetryPolicy(box: box.with(maxAttempts: newValue)) }
    }
    /// The delay before the first retry, in seconds.
    @_alwaysEmitIntoClient
    public var baseDelay: TimeInterval {
        get { box.values.baseDelay }
        set { self = RetryPolicy(box: box.with(baseDelay: newValue)) }
    }
    /// The factor the delay grows by for each further retry.
    @_alwaysEmitIntoClient
    public var multiplier: Double {
        get { box.values.multiplier }
        set { self = RetryPolicy(box: box.with(multiplier: newValue)) }
    }
    /// The longest backoff the policy computes (exponential, jitter included), in seconds.
    /// It does not shorten a server's `Retry-After`, which ``maxRetryAfter`` bounds:
    /// retrying sooner than the server asked would defeat it. So with
    /// ``honorsRetryAfter`` the longest wait between two attempts is the larger of the two.
    @_alwaysEmitIntoClient
    public var maxDelay: TimeInterval {
        get { box.values.maxDelay }
        set { self = RetryPolicy(box: box.with(maxDelay: newValue)) }
    }
    /// How much of each delay is random, from 0 (none) to 1 (anything from 0 to the
    /// full delay), so clients that failed together do not retry together.
    @_alwaysEmitIntoClient
    public var jitter: Double {
        get { box.values.jitter }
        set { self = RetryPolicy(box: box.with(jitter: newValue)) }
    }
    /// Statuses worth retrying.
    @_alwaysEmitIntoClient
    public var retryableStatusCodes: Set<Int> {
        get { box.values.retryableStatusCodes }
        set { self = RetryPolicy(box: box.with(retryableStatusCodes: newValue)) }
    }
    /// Transport errors worth retrying.
    @_alwaysEmitIntoClient
    public var retryableURLErrorCodes: Set<URLError.Code> {
        get { box.values.retryableURLErrorCodes }
        set { self = RetryPolicy(box: box.with(retryableURLErrorCodes: newValue)) }
    }
    /// Whether POST and PATCH are retried too. Off by default: a retried POST may
    /// create a second order.
    @_alwaysEmitIntoClient
    public var retriesNonIdempotentMethods: Bool {
        get { box.values.retriesNonIdempotentMethods }
        set { self = RetryPolicy(box: box.with(retriesNonIdempotentMethods: newValue)) }
    }
    /// Whether a `Retry-After` header (seconds or HTTP date) sets the delay in place of the
    /// backoff (bounded by ``maxRetryAfter``, not by ``maxDelay``).
    @_alwaysEmitIntoClient
    public var honorsRetryAfter: Bool {
        get { box.values.honorsRetryAfter }
        set { self = RetryPolicy(box: box.with(honorsRetryAfter: newValue)) }
    }
    /// The longest `Retry-After` honoured, in seconds, whatever ``maxDelay`` is; a longer
    /// one is cut to this (the retry then comes sooner than the server asked). Lower it,
    /// or turn ``honorsRetryAfter`` off, to bound every wait.
    @_alwaysEmitIntoClient
    public var maxRetryAfter: TimeInterval {
        get { box.values.maxRetryAfter }
        set { self = RetryPolicy(box: box.with(maxRetryAfter: newValue)) }
    }

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
        self.init(box: Box(
            maxAttempts: max(1, maxAttempts), baseDelay: max(0, baseDelay), multiplier: max(1, multiplier),
            maxDelay: max(0, maxDelay), jitter: min(1, max(0, jitter)), retryableStatusCodes: retryableStatusCodes,
            retryableURLErrorCodes: retryableURLErrorCodes, retriesNonIdempotentMethods: retriesNonIdempotentMethods,
            honorsRetryAfter: honorsRetryAfter, maxRetryAfter: max(0, maxRetryAfter)
        ))
    }

    /// 3 attempts, 0.5 s then 1 s (±25 %), on 408/429/500/502/503/504 and transient
    /// transport errors, idempotent methods only, `Retry-After` honoured up to 60 s.
    @_alwaysEmitIntoClient
    public static var `default`: RetryPolicy { RetryPolicy() }

    /// Never retries.
    @_alwaysEmitIntoClient
    public static var none: RetryPolicy { RetryPolicy(maxAttempts: 1) }
}
