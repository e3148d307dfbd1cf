import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects a delegate-driven transfer into one ``TransportOutcome``, with the moment
/// its response began to arrive. Every ordinary request is delegate-driven, since
/// swift-corelibs-foundation reports bytes received and sent (which reset the idle
/// timeout, and make upload progress) only to tasks that have no completion handler.
final class BufferingObserver: TransferObserver, @unchecked Sendable {
    // unchecked: the session's serial delegate queue is the only caller, one event at a time.
    private let request: URLRequest
    private let completion: @Sendable (TransportOutcome) -> Void
    private var response: HTTPURLResponse?
    private var body = Data()
    private var firstByteAt: Date?
    #if canImport(FoundationNetworking)
    /// A redirect the session left to the exchange (see ``SessionDelegate``), set before
    /// the transfer completes; it goes with the outcome.
    var followUp: URLRequest?
    #endif

    init(request: URLRequest, completion: @escaping @Sendable (TransportOutcome) -> Void) {
        self.request = request
        self.completion = completion
    }

    // The session's serial delegate queue calls these one at a time, in order.

    func transferDidReceive(_ response: HTTPURLResponse) -> Bool {
        self.response = response
        if firstByteAt == nil { firstByteAt = Date() }
        return true
    }

    func transferDidReceive(_ data: Data) {
        if firstByteAt == nil { firstByteAt = Date() }
        if body.isEmpty {
            body = data  // shares the bytes of a body that comes in one piece
        } else {
            body.append(data)
        }
    }

    func transferDidCollectMetrics(firstByteAt: Date) {
        self.firstByteAt = firstByteAt  // the platform's own measure is the more exact
    }

    func transferDidComplete(_ error: (any Error)?) {
        var outcome = TransportOutcome(request: request, response: response, data: body, error: error)
        outcome.firstByteAt = firstByteAt
        #if canImport(FoundationNetworking)
        outcome.redirect = followUp
        #endif
        completion(outcome)
    }
}
