import Foundation

/// Remembers which operations were handed to a ``NetworkQueue``, so that adding one a
/// second time (to the same queue or another) is ignored instead of stopping the
/// process in Foundation's "already in a queue" check.
///
/// ``NetworkOperation``s carry their own flag and never reach the table; every other
/// `Operation` is tracked here: its identity in a set, and a weak reference (the registry
/// never keeps one alive) that tells a repeat from a new operation at a reused address.
/// Entries of operations that finished or went away are swept out as the table grows.
enum EnqueueRegistry {
    private struct Entry {
        let id: ObjectIdentifier
        weak var operation: Operation?
    }

    private static let lock = Lock()
    // The three tables below are read and written only under `lock`.
    nonisolated(unsafe) private static var claimed = Set<ObjectIdentifier>()
    nonisolated(unsafe) private static var entries: [Entry] = []
    nonisolated(unsafe) private static var sweepAt = 64

    /// Claims `operation` for `queue`: `false` when it was claimed before, is running or
    /// has finished.
    static func claim(_ operation: Operation, by queue: NetworkQueue) -> Bool {
        if let networkOperation = operation as? NetworkOperation {
            return networkOperation.claimEnqueue(by: queue)
        }
        guard !operation.isExecuting, !operation.isFinished else { return false }
        let id = ObjectIdentifier(operation)
        lock.lock()
        defer { lock.unlock() }
        if claimed.contains(id) {
            // A repeat, unless the operation claimed at this address went away.
            guard let index = entries.firstIndex(where: { $0.id == id }), entries[index].operation == nil else {
                return false
            }
            entries[index].operation = operation
            return true
        }
        claimed.insert(id)
        entries.append(Entry(id: id, operation: operation))
        if entries.count >= sweepAt {
            sweep()
        }
        return true
    }

    /// Drops the entries of operations that finished or went away.
    private static func sweep() {
        entries.removeAll { entry in
            guard let operation = entry.operation, !operation.isFinished else {
                claimed.remove(entry.id)
                return true
            }
            return false
        }
        sweepAt = max(64, entries.count * 2)
    }
}
