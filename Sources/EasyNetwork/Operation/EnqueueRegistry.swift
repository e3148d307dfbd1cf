import Foundation

/// Remembers which operations were handed to a ``NetworkQueue``, so that adding one a
/// second time (to the same queue or another) is ignored instead of stopping the
/// process in Foundation's "already in a queue" check.
///
/// ``NetworkOperation``s carry their own flag and never reach the table; every other
/// `Operation` is tracked here by a weak reference, so the registry never keeps one
/// alive. Entries of operations that finished or went away are swept out as the table
/// grows (by building a new table: the dictionary needs no code for deleting).
enum EnqueueRegistry {
    private struct Entry {
        weak var operation: Operation?
    }

    private static let lock = Lock()
    // Both are read and written only under `lock`.
    nonisolated(unsafe) private static var table = [ObjectIdentifier: Entry]()
    nonisolated(unsafe) private static var sweepAt = 64

    /// Claims `operation` for `queue`: `false` when it was claimed before, is running or
    /// has finished.
    static func claim(_ operation: Operation, by queue: NetworkQueue) -> Bool {
        if let networkOperation = operation as? NetworkOperation {
            return networkOperation.claimEnqueue(by: queue)
        }
        guard !operation.isExecuting, !operation.isFinished else { return false }
        let key = ObjectIdentifier(operation)
        lock.lock()
        defer { lock.unlock() }
        // An entry whose operation went away may carry a reused address: not a claim.
        if table[key]?.operation != nil {
            return false
        }
        table.updateValue(Entry(operation: operation), forKey: key)
        if table.count >= sweepAt {
            var kept = [ObjectIdentifier: Entry](minimumCapacity: table.count)
            for (key, entry) in table {
                if let operation = entry.operation, !operation.isFinished {
                    kept.updateValue(entry, forKey: key)
                }
            }
            table = kept
            sweepAt = max(64, kept.count * 2)
        }
        return true
    }
}
