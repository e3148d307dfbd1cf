#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// Slot lending (``TokenPlugIn``'s loans): while an operation is parked (waiting for a token
/// refresh), the `OperationQueue` underneath runs its limit plus the slots lent at
/// most. The core keeps the counts (its `maxConcurrentOperationCount` sets the limit);
/// only the token lends.
extension NetworkQueue {
    /// One more operation may run while one is parked.
    func lendSlot() {
        _ = adjustSlots(limit: nil, lending: 1)
    }

    /// A parked operation resumes: `body` runs when a slot is free, ahead of the operations
    /// not yet started, and gives the lent one back. A one-step `BlockOperation` runs it,
    /// and its completion block runs it again: a queue-wide cancel skips the block but
    /// never the completion block, so the parked operation is never stranded; `body` acts
    /// on its first call only. (No `Operation` subclass: each one carries a vtable of
    /// Operation's and NSObject's methods.) A suspended queue starts nothing, so there
    /// `body` runs at once.
    func reenter(_ body: @escaping @Sendable () -> Void) {
        guard !operationQueue.isSuspended else {
            return body()
        }
        let operation = BlockOperation(block: body)
        operation.completionBlock = body
        operation.queuePriority = .veryHigh
        operationQueue.addOperation(operation)
    }

    /// A parked operation ended: back to one slot fewer.
    func returnSlot() {
        _ = adjustSlots(limit: nil, lending: -1)
    }
}
