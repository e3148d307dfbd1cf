#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
import EasyNetworkBackoff
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
    /// 408, 429, 5xx and a failed token refresh retry; a cancellation, or a request the host
    /// refused before sending it (`attempts` 0: a server's pause or an open circuit breaker
    /// of the retry engine), is no attempt; anything else is final.
    static func judge(_ error: NetworkError?) -> DeliveryVerdict {
        guard let error else { return .delivered }
        if error.attempts == 0 { return .notSent }
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
    /// ±20 % jitter, up to `maxRetryDelay`. `random` is a number in 0..<1.
    static func delay(after attempts: Int, error: NetworkError?, options: OutboxOptions, now: Date = Date(), random: Double = Double(Outbox.random() >> 11) * 0x1p-53) -> TimeInterval {
        if let seconds = RetryAfter.seconds(in: error?.response, now: now) {
            return min(seconds, options.maxRetryDelay)
        }
        return Backoff.delay(after: attempts, base: options.retryDelay, multiplier: 2, maximum: options.maxRetryDelay, jitter: 0.2, random: random)
    }
}
