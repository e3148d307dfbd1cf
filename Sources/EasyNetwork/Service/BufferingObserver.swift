import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects a delegate-driven transfer into one ``TransportOutcome``: for uploads whose
/// progress is wanted, since swift-corelibs-foundation reports sent bytes only to
/// tasks that have no completion handler.
final class BufferingObserver: TransferObserver, @unchecked Sendable {
    private let request: URLRequest
    private let completion: @Sendable (TransportOutcome) -> Void
    private var response: HTTPURLResponse?
    private var body = Data()

    init(request: URLRequest, completion: @escaping @Sendable (TransportOutcome) -> Void) {
        self.request = request
        self.completion = completion
    }

    // The session's serial delegate queue calls these one at a time, in order.

    func transferDidReceive(_ response: HTTPURLResponse) -> Bool {
        self.response = response
        return true
    }

    func transferDidReceive(_ data: Data) {
        body.append(data)
    }

    func transferDidComplete(_ error: (any Error)?) {
        completion(TransportOutcome(request: request, response: response, data: body, error: error))
    }
}
