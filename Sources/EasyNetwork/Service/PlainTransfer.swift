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
        let http = response as? HTTPURLResponse
        var outcome = TransportOutcome(request: request, response: http, data: data ?? Data(), error: error)
        // The delegate notes only a challenge (the task then ends cancelled), a refused
        // redirect or one left to the exchange (the task then ends with the 3xx), so any
        // other success never looks.
        if error != nil || http.map({ $0.statusCode >= 300 && $0.statusCode < 400 }) == true,
           let task, let note = delegate.takePlainNote(of: task) {
            if let refusal = note.refusal {
                outcome.error = refusal
            } else if let challenged = note.response, (error as? URLError)?.errorCode == NSURLErrorCancelled {
                outcome.response = challenged
                outcome.error = nil
            }
            #if canImport(FoundationNetworking)
            if error == nil { outcome.redirect = note.followUp }  // the exchange sends it with the body
            #endif
        }
        completion(outcome)
    }
}
