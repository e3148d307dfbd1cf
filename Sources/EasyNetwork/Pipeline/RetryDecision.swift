import Foundation

/// What an interceptor's ``RequestInterceptor/retry(_:context:completion:)`` decides
/// about a failed attempt.
public enum RetryDecision: Sendable {
    /// No opinion: the next interceptor, and last the retry policy, decide.
    case pass
    /// Send the request again after this many seconds (0: at once).
    // Indirect: the enum is one word (a reference or a tag), its witnesses smaller.
    indirect case retry(after: TimeInterval)
    /// Do not retry; the request fails with this error instead of the attempt's.
    case fail(NetworkError)
}
