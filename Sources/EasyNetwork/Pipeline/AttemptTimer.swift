import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The clock of one attempt: hears every byte the transfer moves (``TransferActivity``)
/// and calls `expired` once when the attempt's ``AttemptDeadline`` passes, with the
/// `URLError.timedOut` that says which limit it was.
///
/// Bytes moving only stamp a time under the lock. The timer (one entry in the shared
/// ``DeadlineScheduler``) fires at the earliest moment the attempt could expire; when
/// bytes moved since, it is set again for the new moment instead of firing.
final class AttemptTimer: TransferActivity, Sendable {
    private struct State {
        var lastActivity: DispatchTime
        /// The scheduler key while armed.
        var key: Int?
        var stopped = false
    }

    private let deadline: AttemptDeadline
    private let start: DispatchTime
    private let expired: @Sendable (URLError) -> Void
    // The lock makes the mutable fields safe to touch from any queue.
    private let state: Protected<State>

    /// A clock that starts now; ``arm()`` lets it fire.
    init(_ deadline: AttemptDeadline, expired: @escaping @Sendable (URLError) -> Void) {
        self.deadline = deadline
        self.expired = expired
        let now = DispatchTime.now()
        start = now
        state = Protected(State(lastActivity: now))
    }

    /// Sets the timer for the first moment the attempt could expire.
    func arm() {
        check()
    }

    func transferMoved() {
        let now = DispatchTime.now()
        state.write { $0.lastActivity = now }
    }

    /// Disarms the timer for good (the attempt ended or was cancelled).
    func stop() {
        state.write { state in
            state.stopped = true
            state.key.map(DeadlineScheduler.shared.cancel)
            state.key = nil
        }
    }

    /// Fires when the attempt's time is up, or sets the timer again for its new moment.
    private func check() {
        let now = DispatchTime.now()
        let error: URLError? = state.write { state in
            state.key = nil
            guard !state.stopped else { return nil }
            let expiry = deadline.expiry(start: start, lastActivity: state.lastActivity)
            guard expiry <= now else {
                // A strong reference (a weak one costs every request a side table):
                // every way the attempt ends calls stop(), which removes the entry.
                state.key = DeadlineScheduler.shared.schedule(at: expiry) { [self] in check() }
                return nil
            }
            state.stopped = true
            return deadline.error(start: start, lastActivity: state.lastActivity)
        }
        if let error {
            expired(error)
        }
    }
}
