import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running transfer that can be cancelled from any thread: a task of its own, or a
/// seat on a shared (coalesced) one.
@usableFromInline  // named by RequestPlugIn, which the features emitted into products name
package struct TransportTask: Sendable {
    private let cancelAction: @Sendable () -> Void

    init(_ task: URLSessionTask) {
        cancelAction = { SessionDelegate.cancel(task) }  // the task itself is the closure's context: no allocation
    }

    package init(cancel: @escaping @Sendable () -> Void) {
        cancelAction = cancel
    }

    /// Cancels; the transfer's completion reports a cancellation.
    package func cancel() {
        cancelAction()
    }
}
