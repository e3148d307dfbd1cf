import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Hands one adapted attempt to the host's session (through the coalescer when it may
/// share a transfer) with its clock, the ``AttemptTimer`` that hears every byte.
/// `arrived` runs once, on the session's delegate queue.
enum TransportStage {
    /// The task in flight (`nil` when the session is gone: `arrived` reported it).
    static func send(
        _ urlRequest: URLRequest,
        bodyFile: URL?,
        transport: NetworkService,
        priority: Float?,
        coalesces: Bool,
        uploadProgress: (@Sendable (Int64, Int64) -> Void)?,
        timer: AttemptTimer,
        arrived: @escaping @Sendable (TransportOutcome) -> Void
    ) -> TransportTask? {
        guard coalesces, bodyFile == nil, RequestCoalescer.canCoalesce(urlRequest) else {
            return transport.dataTask(with: urlRequest, bodyFile: bodyFile, priority: priority, uploadProgress: uploadProgress, activity: timer, completion: arrived)
        }
        return transport.coalescer.dataTask(with: urlRequest, activity: timer, start: {
            transport.dataTask(with: urlRequest, priority: priority, activity: $0, completion: $1)
        }, completion: arrived)
    }
}
