import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Receives a streaming transfer's events, in order, on the session's delegate queue.
package protocol TransferObserver: AnyObject, Sendable {
    /// The response head arrived; return `false` to stop the transfer.
    func transferDidReceive(_ response: HTTPURLResponse) -> Bool
    /// A piece of the body arrived.
    func transferDidReceive(_ data: Data)
    /// The transfer ended, with the transport error if any.
    func transferDidComplete(_ error: (any Error)?)
    /// Apple's task metrics tell when the last response began; called just before
    /// ``transferDidComplete(_:)`` when they do.
    func transferDidCollectMetrics(firstByteAt: Date)
}

extension TransferObserver {
    /// Observers that keep no timings ignore metrics.
    package func transferDidCollectMetrics(firstByteAt: Date) {}
}
