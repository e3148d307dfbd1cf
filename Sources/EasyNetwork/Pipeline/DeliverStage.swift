import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The last stage, once per request: interceptors' `didFinish` (with the last
/// attempt's request and answer), then in one hop to the host's callback queue the
/// unauthorized notification and the host's error handler for a failure that is not
/// a cancellation, then the caller's completion. A success whose sink runs nothing of
/// the caller's there (an awaited request, see ``ExchangeSink/deliversInPlace``) is
/// delivered at once, on the finishing thread: its task resumes on its own executor.
enum DeliverStage {
    static func run(_ error: NetworkError?, metrics: RequestMetrics, last: (URLRequest?, HTTPURLResponse?, Data?)?, exchange: RequestExchange) {
        if let (urlRequest, response, data) = last {
            let outcome = RequestOutcome(urlRequest: urlRequest, response: response, data: data, error: error, metrics: metrics)
            let context = exchange.context(attempt: metrics.attempts)
            exchange.interceptors.forEach { $0.didFinish(outcome, context: context) }
        }
        if error == nil, exchange.sink.deliversInPlace {
            return end(nil, metrics: metrics, exchange: exchange)
        }
        QueueHop.async(exchange.settings.settings.callbackQueue) {
            end(error, metrics: metrics, exchange: exchange)
        }
    }

    /// The second half, on the callback queue (an awaited success: where it is).
    @inline(never)
    private static func end(_ error: NetworkError?, metrics: RequestMetrics, exchange: RequestExchange) {
        if let error, !error.isCancelled {
            if error.isUnauthorized {
                NotificationCenter.default.post(
                    name: HostConfiguration.unauthorizedOperationNotification,
                    object: exchange.host,
                    userInfo: ["error": error]
                )
            }
            if !exchange.request.suppressesErrorHandler {
                exchange.settings.settings.errorHandler?(exchange.request, error)
            }
        }
        exchange.sink.deliver(error, metrics: metrics, lock: exchange.lock)
        if error?.isCancelled == true {
            exchange.service.cancellationDelivered()
        }
    }
}
