#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an attempt's outcome means for its entry; the outbox's one retry rule.
enum DeliveryVerdict: Equatable {
    /// An accepted answer: the entry is removed.
    case delivered
    /// Not an attempt (cancelled): the entry waits a moment and goes again, uncounted.
    case notSent
    /// Worth another attempt after a wait (`Retry-After`, else the backoff); `counted`
    /// when the attempt may have reached the server (see ``OutboxOptions/maxAttempts``).
    case retry(counted: Bool)
    /// A final answer: the entry becomes a dead letter.
    case final

    /// Whether a transport error means the request never left the device.
    private static func neverSent(_ error: URLError?) -> Bool {
        switch error?.code {
        case .notConnectedToInternet?, .cannotFindHost?, .cannotConnectToHost?, .dnsLookupFailed?,
             .internationalRoamingOff?, .callIsActive?, .dataNotAllowed?:
            return true
        default:
            return false
        }
    }

    /// How an attempt that ended with `error` (`nil`: accepted) counts: transport errors,
    /// 408, 429, 5xx and a failed token refresh retry; a cancellation is no attempt;
    /// anything else is final.
    static func judge(_ error: NetworkError?) -> DeliveryVerdict {
        guard let error else { return .delivered }
        switch error.kind {
        case .cancelled:
            return .notSent
        case .transport:
            return .retry(counted: !neverSent(error.urlError))
        case .unacceptableStatus:
            guard let status = error.statusCode, status == 408 || status == 429 || (500...599).contains(status) else { return .final }
            return .retry(counted: true)
        case .authentication:
            return .retry(counted: true)
        default:
            return .final
        }
    }

    /// The wait before the attempt after `attempts` failed ones: the answer's
    /// `Retry-After` (up to `maxRetryDelay`), else `retryDelay` doubled per attempt with
    /// ±20 % jitter, up to `maxRetryDelay`.
    static func delay(after attempts: Int, error: NetworkError?, options: OutboxOptions) -> TimeInterval {
        // The core's backoff and `Retry-After` rule with the outbox's numbers (a copy of a
        // constant policy: its initializer would build its sets of codes here).
        var policy = RetryPolicy.none
        policy.baseDelay = options.retryDelay
        policy.multiplier = 2
        policy.maxDelay = options.maxRetryDelay
        policy.jitter = 0.2
        policy.maxRetryAfter = options.maxRetryDelay
        return policy.delay(after: attempts, error: error ?? NetworkError(kind: .transport))
    }
}
