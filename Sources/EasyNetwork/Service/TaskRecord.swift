import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The bookkeeping of one running task. Written by the session delegate on its
/// serial delegate queue; `cancelledByCaller` may be set from any thread.
final class TaskRecord: @unchecked Sendable {
    let request: URLRequest
    let completion: @Sendable (TransportOutcome) -> Void
    var response: HTTPURLResponse?
    var body = Data()
    /// The response a server's authentication challenge carried (Linux: the task
    /// is cancelled to avoid a hang, and this is what the caller gets).
    var challengeResponse: HTTPURLResponse?
    private let cancelled = Protected(false)

    init(request: URLRequest, completion: @escaping @Sendable (TransportOutcome) -> Void) {
        self.request = request
        self.completion = completion
    }

    var cancelledByCaller: Bool {
        get { cancelled.wrappedValue }
        set { cancelled.write { $0 = newValue } }
    }
}
