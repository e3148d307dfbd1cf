import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of a host's session: collects each task's response and body and
/// completes it once. It holds no reference to the host, so the session (which keeps
/// its delegate alive until invalidated) never keeps a host alive.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let records = Protected([ObjectIdentifier: TaskRecord]())

    func register(_ record: TaskRecord, for task: URLSessionTask) {
        records.write { $0[ObjectIdentifier(task)] = record }
    }

    private func record(for task: URLSessionTask) -> TaskRecord? {
        records.read { $0[ObjectIdentifier(task)] }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let record = record(for: dataTask) {
            record.response = response as? HTTPURLResponse
            if response.expectedContentLength > 0, response.expectedContentLength < 64 << 20 {
                record.body.reserveCapacity(Int(response.expectedContentLength))
            }
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        record(for: dataTask)?.body.append(data)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        // swift-corelibs-foundation hangs on `.performDefaultHandling` for a 401 with
        // `WWW-Authenticate`; cancelling ends the task at once, and the challenge
        // still carries the 401 response, which the caller gets instead.
        record(for: task)?.challengeResponse = challenge.failureResponse as? HTTPURLResponse
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        completionHandler(.performDefaultHandling, nil)
        #endif
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let record = records.write({ $0.removeValue(forKey: ObjectIdentifier(task)) }) else { return }
        var outcome = TransportOutcome(request: record.request, response: record.response, data: record.body, error: error)
        outcome.cancelledByCaller = record.cancelledByCaller
        if let challengeResponse = record.challengeResponse, !record.cancelledByCaller {
            outcome.response = challengeResponse
            outcome.error = nil
        }
        record.completion(outcome)
    }
}
