import Foundation

/// Remembers which operations were handed to a ``NetworkQueue``, so that adding one a
/// second time (to the same queue or another) is ignored instead of stopping the
/// process in Foundation's "already in a queue" check.
///
/// ``NetworkOperation``s carry their own flag; every other `Operation` is tracked here
/// by a weak reference, so the registry never keeps one alive. Entries of operations
/// that finished or went away are swept out as the registry grows.
enum EnqueueRegistry {
    private struct Entry {
        weak var operation: Operation?
    }

    private struct Table {
        var entries: [ObjectIdentifier: Entry] = [:]
        var sweepAt = 64
    }

    private static let table = Protected(Table())

    /// Claims `operation` for `queue`: `false` when it was claimed before, is running or
    /// has finished.
    static func claim(_ operation: Operation, by queue: NetworkQueue) -> Bool {
        if let networkOperation = operation as? NetworkOperation {
            return networkOperation.claimEnqueue(by: queue)
        }
        guard !operation.isExecuting, !operation.isFinished else { return false }
        let key = ObjectIdentifier(operation)
        return table.write { table in
            // An entry whose operation went away may carry a reused address: not a claim.
            if let entry = table.entries[key], entry.operation != nil {
                return false
            }
            table.entries[key] = Entry(operation: operation)
            if table.entries.count >= table.sweepAt {
                table.entries = table.entries.filter { $0.value.operation.map { !$0.isFinished } ?? false }
                table.sweepAt = max(64, table.entries.count * 2)
            }
            return true
        }
    }
}
