import Foundation

/// Remembers which operations were handed to a ``NetworkQueue``, so that adding one a
/// second time (to the same queue or another) is ignored instead of stopping the
/// process in Foundation's "already in a queue" check.
///
/// ``ServiceOperation``s carry their own flag and never reach the table; every other
/// `Operation` is tracked here by a weak reference, so the registry never keeps one
/// alive. Entries of operations that finished or went away are swept out as the table
/// grows.
///
/// The table is Foundation's `NSMutableDictionary`, keyed by the operation's address:
/// its code lives in Foundation, where a Swift dictionary of a type of its own would
/// compile its hash-table code (about 2 KB) into every program for this rare case.
@usableFromInline
enum EnqueueRegistry {
    /// A claimed operation, held weakly.
    private final class Entry {
        weak var operation: Operation?

        init(_ operation: Operation) {
            self.operation = operation
        }
    }

    private static let lock = Lock()
    // The table's entries and `sweepAt` are read and written only under `lock`.
    nonisolated(unsafe) private static let table = NSMutableDictionary()
    nonisolated(unsafe) private static var sweepAt = 64

    /// Claims `operation` for `queue`: `false` when it was claimed before, is running or
    /// has finished.
    @usableFromInline
    static func claim(_ operation: Operation, by queue: NetworkQueue) -> Bool {
        if let networkOperation = operation as? ServiceOperation {
            return networkOperation.claimEnqueue(by: queue)
        }
        guard !operation.isExecuting, !operation.isFinished else { return false }
        let key = NSNumber(value: UInt(bitPattern: ObjectIdentifier(operation)))
        lock.lock()
        defer { lock.unlock() }
        // An entry whose operation went away may carry a reused address: not a claim.
        if (table.object(forKey: key) as? Entry)?.operation != nil {
            return false
        }
        if table.count >= sweepAt {
            for key in table.allKeys {
                if let operation = (table.object(forKey: key) as? Entry)?.operation, !operation.isFinished {
                    continue
                }
                table.removeObject(forKey: key)
            }
            sweepAt = max(64, table.count * 2)
        }
        table.setObject(Entry(operation), forKey: key)
        return true
    }
}
