import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running transfer that can be cancelled from any thread: a task of its own, or a
/// seat on a shared (coalesced) one.
package struct TransportTask: Sendable {
    /// The session's task (no closure to allocate for the usual case), or `nil` for a
    /// transfer that cancels itself.
    private let task: URLSessionTask?
    private let cancelAction: (@Sendable () -> Void)?

    init(_ task: URLSessionTask) {
        self.task = task
        cancelAction = nil
    }

    package init(cancel: @escaping @Sendable () -> Void) {
        task = nil
        cancelAction = cancel
    }

    /// Cancels; the transfer's completion reports a cancellation.
    package func cancel() {
        if let task {
            task.cancel()
        } else {
            cancelAction?()
        }
    }
}
