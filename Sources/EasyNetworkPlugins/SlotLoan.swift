#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// A queue slot an operation gives up while it is parked: waiting for a token refresh,
/// it holds no network resource, so it must not hold one of the queue's slots either.
///
/// While the loan is out, the operation's ``NetworkQueue`` runs one more operation than
/// its limit (the refresh request, wherever and however the refresh sends it, or other
/// work). To go on, a parked operation re-enters the queue (``giveBack(then:)``): it
/// resumes when a slot is free, so the operations that are not parked never exceed the
/// limit, not even right after a refresh that many waited for. ``lend()`` and the give-
/// backs may arrive in either order from any thread: a loan is lent at most once, and
/// once given back (or given back before it was lent) it stays closed.
final class SlotLoan: @unchecked Sendable {  // unchecked: `lent`, `closed` guarded by `lock`
    /// From the operations' pool: a loan allocates no mutex.
    private var lock: OperationLock { OperationLock(for: self) }
    @exclusivity(unchecked) private var lent: Bool
    @exclusivity(unchecked) private var closed: Bool
    private weak let queue: NetworkQueue?

    /// A loan from `queue`; a loan from no queue does nothing.
    init(from queue: NetworkQueue?) {
        self.queue = queue
        lent = false
        closed = false
    }

    /// The operation parks: its queue may start one more operation.
    func lend() {
        lock.lock()
        let lend = !lent && !closed
        lent = true
        lock.unlock()
        if lend {
            queue?.lendSlot()
        }
    }

    /// Closes the loan. Without `resume`, the operation ends without sending again: the
    /// queue's limit is restored now. With it, the operation sends again: `resume` runs
    /// once the queue has a free slot for it (at once when the slot was never lent).
    /// (`resume` is optional so that the optimizer keeps one copy of this function and of
    /// `NetworkQueue.reenter`, not one per closure passed.)
    @inline(never)
    func giveBack(then resume: (@Sendable () -> Void)? = nil) {
        guard close(), let queue else {
            resume?()
            return
        }
        if let resume {
            queue.reenter(resume)
        } else {
            queue.returnSlot()
        }
    }

    /// Closes the loan; whether it was lent.
    private func close() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let wasLent = lent && !closed
        closed = true
        return wasLent
    }
}
