import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running data task that can be cancelled from any thread.
struct TransportTask: @unchecked Sendable {
    let task: URLSessionTask

    /// Cancels the task; its completion reports a cancellation.
    func cancel() {
        task.cancel()
    }
}
