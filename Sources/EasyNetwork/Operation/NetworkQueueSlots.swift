import Foundation

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

    /// A parked operation resumes: `resume` runs when a slot is free, with the lent
    /// one given back. A suspended queue starts nothing, so there it runs at once.
    func reenter(_ resume: @escaping @Sendable () -> Void) {
        guard !operationQueue.isSuspended else {
            returnSlot()
            return resume()
        }
        operationQueue.addOperation(SlotReentry { [weak self] in
            self?.returnSlot()
            resume()
        })
    }

    /// A parked operation ended: back to one slot fewer.
    func returnSlot() {
        slots.write { slots in
            slots.lent = max(0, slots.lent - 1)
            operationQueue.maxConcurrentOperationCount = slots.width
        }
    }
}
