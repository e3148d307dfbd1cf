import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One attempt on a task with a completion handler (``NetworkService/plainTask(with:priority:completion:)``):
/// a request that needs no byte events, whose idle timeout the session keeps itself.
///
/// swift-corelibs-foundation runs one operation on the session's delegate queue for
/// such a task (its completion) where a delegate-driven task costs three (response,
/// data, completion), and tells nobody about its bytes while it runs. The session
/// delegate still answers its authentication challenge: a 401 with `WWW-Authenticate`
/// ends at once as cancelled, and the 401 the challenge carried is reported instead; a
/// redirect the host's trust evaluator refused ends with the 3xx, reported as the refusal;
/// on Linux a redirect that keeps a body ends with the 3xx and goes to the exchange.
final class PlainTransfer: @unchecked Sendable {
    // unchecked: `task` is written once before the task resumes; the completion, the
    // only reader, runs after the resume (corelibs orders it on its queues).
    private let request: URLRequest
    private let delegate: SessionDelegate
    private let completion: @Sendable (TransportOutcome) -> Void
    /// The task this transfer is the completion of.
    var task: URLSessionTask?

    init(request: URLRequest, delegate: SessionDelegate, completion: @escaping @Sendable (TransportOutcome) -> Void) {
        self.request = request
        self.delegate = delegate
        self.completion = completion
    }

    /// The task's completion handler, on the session's delegate queue.
    func complete(_ data: Data?, _ response: URLResponse?, _ error: (any Error)?) {
        completion(delegate.plainOutcome(of: task, request: request, data: data, response: response, error: error))
    }
}
