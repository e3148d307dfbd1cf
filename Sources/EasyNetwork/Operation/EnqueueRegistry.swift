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
/// The table is a plain array of weak entries, searched by identity (a weak reference to
/// an operation that went away reads `nil`, so a reused address is never taken for a
/// claim): a hash table of its own would compile its code (about 2 KB) into every program
/// for this rare case, and Foundation's would bridge every key and value.
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
    // `entries` and `sweepAt` are read and written only under `lock`.
    @exclusivity(unchecked) nonisolated(unsafe) private static var entries: [Entry] = []
    @exclusivity(unchecked) nonisolated(unsafe) private static var sweepAt = 64

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
        for entry in entries where entry.operation === operation {
            return false
        }
        if entries.count >= sweepAt {
            // Entries of operations that finished or went away are dropped as the table grows.
            entries = entries.filter { $0.operation.map { !$0.isFinished } ?? false }
            sweepAt = max(64, entries.count * 2)
        }
        entries.append(Entry(operation))
        return true
    }
}
