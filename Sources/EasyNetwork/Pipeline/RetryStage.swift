import Foundation

/// The one place a retry is decided: after a failed attempt, the request's
/// interceptors are asked in order (the token first, then the host's, then the
/// request's) and the retry engine last (``RequestPlugIn/retrier``: the `EasyNetworkRetry`
/// product, with the request's or the host's ``RetryPolicy``; without it nothing is asked
/// last); the first answer that is not ``RetryDecision/pass`` wins. Any of them may answer
/// later, from any thread. An interceptor's `.retry` is counted for
/// ``RequestContext/retryCount(decidedBy:)``, and a backoff runs on the shared ``DeadlineScheduler``.
///
/// Cancellations are never offered: a cancelled request ends as cancelled. Nor is a
/// failure another attempt could only repeat (a ``NonRetryableError`` underneath: a server
/// refused by its pins): it passes at once.
enum RetryStage {
    /// Asks `interceptors`, then `last`, about `error`; calls `completion` once.
    static func decide(
        _ error: NetworkError,
        interceptors: [any RequestInterceptor],
        last: (any RequestInterceptor)?,
        context: RequestContext,
        completion: @escaping @Sendable (RetryDecision) -> Void
    ) {
        if error.underlyingError is any NonRetryableError {
            return completion(.pass)
        }
        ask(0, error, interceptors, last, context, completion)
    }

    private static func ask(
        _ index: Int,
        _ error: NetworkError,
        _ interceptors: [any RequestInterceptor],
        _ last: (any RequestInterceptor)?,
        _ context: RequestContext,
        _ completion: @escaping @Sendable (RetryDecision) -> Void
    ) {
        guard index < interceptors.count else {
            guard let last else { return completion(.pass) }
            return last.retry(error, context: context, completion: completion)
        }
        let interceptor = interceptors[index]
        interceptor.retry(error, context: context) { decision in
            switch decision {
            case .pass:
                ask(index + 1, error, interceptors, last, context, completion)
            case .retry:
                context.ledger?.recordRetry(decidedBy: ObjectIdentifier(type(of: interceptor)))
                completion(decision)
            case .fail:
                completion(decision)
            }
        }
    }

    /// Runs `work` after `delay` seconds on the timers' queue, at once (on this thread)
    /// for no delay. Returns the scheduler key that cancels a pending backoff.
    static func backoff(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> Int? {
        guard delay > 0 else {
            work()
            return nil
        }
        // The scheduler's handler runs serially: the next attempt starts off it.
        return DeadlineScheduler.shared.schedule(at: .now() + min(delay, 3_153_600_000)) {
            QueueHop.async(ExchangeTimers.queue, work)
        }
    }
}

/// Counts a request's retry decisions by the type of interceptor that made them.
protocol RetryLedger: AnyObject, Sendable {
    /// How many `.retry` decisions interceptors of `type` made.
    func retryCount(decidedBy type: ObjectIdentifier) -> Int
    /// Notes one `.retry` decision of an interceptor of `type`.
    func recordRetry(decidedBy type: ObjectIdentifier)
}
