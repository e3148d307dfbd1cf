import Foundation

/// A queue slot an operation gives up while it is parked: waiting for a token refresh,
/// it holds no network resource, so it must not hold one of the queue's slots either.
///
/// While the loan is out, the operation's ``NetworkQueue`` runs one more operation than
/// its limit (the refresh request, wherever and however the refresh sends it, or other
/// work); the operations that are not parked never exceed the limit. ``lend()`` and
/// ``giveBack()`` may arrive in either order from any thread: a loan is lent at most
/// once, and once given back (or given back before it was lent) it stays closed.
final class SlotLoan: Sendable {
    private enum Phase { case idle, lent, closed }

    private let phase = Protected(Phase.idle)
    private weak let queue: NetworkQueue?

    /// A loan from `queue`; a loan from no queue does nothing.
    init(from queue: NetworkQueue?) {
        self.queue = queue
    }

    /// The operation parks: its queue may start one more operation.
    func lend() {
        let lend: Bool = phase.write { phase in
            guard phase == .idle else { return false }
            phase = .lent
            return true
        }
        if lend {
            queue?.lendSlot()
        }
    }

    /// The operation resumes (or ends): the queue's limit is restored.
    func giveBack() {
        let wasLent: Bool = phase.write { phase in
            defer { phase = .closed }
            return phase == .lent
        }
        if wasLent {
            queue?.returnSlot()
        }
    }
}

/// The queue's own limit and the slots lent to parked operations on top of it.
struct QueueSlots {
    var limit: Int
    var lent = 0

    /// What the `OperationQueue` underneath runs at most.
    var width: Int { limit + lent }
}

extension NetworkQueue {
    /// One more operation may run while one is parked.
    func lendSlot() {
        slots.write { slots in
            slots.lent += 1
            operationQueue.maxConcurrentOperationCount = slots.width
        }
    }

    /// A parked operation resumed: back to one slot fewer.
    func returnSlot() {
        slots.write { slots in
            slots.lent = max(0, slots.lent - 1)
            operationQueue.maxConcurrentOperationCount = slots.width
        }
    }
}
