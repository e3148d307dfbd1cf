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
        _ = adjustSlots(limit: nil, lending: -1)
    }
}
