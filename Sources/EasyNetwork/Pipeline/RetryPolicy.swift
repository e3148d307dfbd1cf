import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When and how often a failed request is sent again.
///
/// A retried request stays one request: its callbacks fire once, with the last
/// outcome, and its error's ``NetworkError/attempts`` says how many sends were made.
/// Cancelling it during a backoff ends it at once.
///
/// The request's policy (else the host's) is asked last, after every interceptor
/// passed (see ``RequestInterceptor/retry(_:context:completion:)``); a policy may also
/// sit among the interceptors like any other.
///
/// ```swift
/// host.retryPolicy = .default                    // 3 attempts, 0.5 s, 1 s backoff with jitter
/// host.retryPolicy = RetryPolicy(maxAttempts: 5, baseDelay: 0.2)
/// ```
public struct RetryPolicy: RequestInterceptor {
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
    public static let `default` = RetryPolicy()

    /// Never retries.
    public static let none: RetryPolicy = {
        // ``default`` with one attempt: its sets are built once, not again here.
        var policy = RetryPolicy.default
        policy.maxAttempts = 1
        return policy
    }()

    /// Whether `error` after `attempt` sends of a `method` request deserves another.
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

    /// Retries after ``delay(after:error:now:)`` when ``shouldRetry(_:method:attempt:)``
    /// says so for the context's request and attempt; passes otherwise.
    public func retry(_ error: NetworkError, context: RequestContext, completion: @escaping @Sendable (RetryDecision) -> Void) {
        guard shouldRetry(error, method: context.request.method, attempt: context.attempt) else {
            completion(.pass)
            return
        }
        completion(.retry(after: delay(after: context.attempt, error: error)))
    }

    /// The delay before the retry that follows `attempt` sends: `Retry-After` when
    /// present and honoured (at most ``maxRetryAfter``), else exponential backoff with
    /// jitter (at most ``maxDelay``).
    public func delay(after attempt: Int, error: NetworkError, now: Date = Date()) -> TimeInterval {
        if honorsRetryAfter, let header = error.response?.value(forHTTPHeaderField: "Retry-After"),
           let seconds = Self.retryAfterSeconds(header, now: now) {
            return min(max(0, seconds), maxRetryAfter)
        }
        let exponential = baseDelay * pow(multiplier, Double(max(0, attempt - 1)))
        let capped = min(exponential, maxDelay)
        let spread = capped * jitter
        let jittered = capped - spread + Double.random(in: 0...1) * spread * 2
        return min(max(0, jittered), maxDelay)
    }

    /// Seconds from a `Retry-After` value: delta-seconds or an HTTP date.
    static func retryAfterSeconds(_ value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = TimeInterval(trimmed), seconds.isFinite {
            return seconds
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: trimmed).map { $0.timeIntervalSince(now) }
    }
}
