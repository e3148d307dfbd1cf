import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running transfer that can be cancelled from any thread: a task of its own, or a
/// seat on a shared (coalesced) one.
///
/// One reference and nothing else (the session task itself, or a ``Seat``), so it needs
/// no value witnesses of its own and making one for a task allocates nothing.
@usableFromInline  // named by RequestPlugIn, which the features emitted into products name
package struct TransportTask: Sendable {
    /// What cancels a seat on a shared transfer.
    private final class Seat: Sendable {
        let cancel: @Sendable () -> Void

        init(_ cancel: @escaping @Sendable () -> Void) {
            self.cancel = cancel
        }
    }

    /// The session task, or a ``Seat``.
    private let target: any AnyObject & Sendable

    init(_ task: URLSessionTask) {
        target = task
    }

    package init(cancel: @escaping @Sendable () -> Void) {
        target = Seat(cancel)
    }

    /// Cancels; the transfer's completion reports a cancellation.
    @inline(never)  // one copy for its callers
    package func cancel() {
        if let seat = target as? Seat {
            seat.cancel()
        } else if let task = target as? URLSessionTask {
            SessionDelegate.cancel(task)
        }
    }
}
