import Foundation

/// Remembers which operations were handed to a ``NetworkQueue``, so that adding one a
/// second time (to the same queue or another) is ignored instead of stopping the
/// process in Foundation's "already in a queue" check.
///
/// ``ServiceOperation``s carry their own flag and never reach the table; every other
/// `Operation` is tracked here by a weak reference, so the registry never keeps one
/// alive. The entry of an operation that finished or went away is reused by the next
/// claim, so the table is as long as the most such operations ever waiting at once.
///
/// The table is a plain array of weak entries, searched by identity (a weak reference to
/// an operation that went away reads `nil`, so a reused address is never taken for a
/// claim): a hash table of its own would compile its code (about 2 KB) into every program
/// for this rare case, and Foundation's would bridge every key and value.
@usableFromInline
enum EnqueueRegistry {
    /// A claimed operation, held weakly (replaced when its entry is taken over).
    private final class Entry {
        weak var operation: Operation?

        init(_ operation: Operation) {
            self.operation = operation
        }
    }

    private static let lock = Lock()
    // `entries` and `sweepAt` are read and written only under `lock`.
    /// Read and written only under `lock` (the entries' `operation` too).
    @exclusivity(unchecked) nonisolated(unsafe) private static var entries: [Entry] = []

    /// Claims `operation` for `queue`: `false` when it was claimed before, is running or
    /// has finished.
    @usableFromInline
    static func claim(_ operation: Operation, by queue: NetworkQueue) -> Bool {
        if let serviceOperation = operation as? ServiceOperation {
            return serviceOperation.claimEnqueue(by: queue)
        }
        guard !operation.isExecuting, !operation.isFinished else { return false }
        lock.lock()
        defer { lock.unlock() }
        var free: Entry?
        for entry in entries {
            let held = entry.operation
            if held === operation {
                return false
            }
            // The first entry of an operation that finished or went away is taken over.
            if free == nil, held?.isFinished ?? true {
                free = entry
            }
        }
        if let free {
            free.operation = operation
        } else {
            entries.append(Entry(operation))
        }
        return true
    }
}
