import Foundation

/// Hands operations' cancellations to a callback queue in batches: the first operation
/// posted to an idle queue schedules one drain, and those posted before that drain runs
/// join it.
///
/// Each post is delivered exactly once (``ServiceOperation/receiveCoalescedDelivery()``),
/// on its queue, in the order posted; never later than a plain `queue.async` posted at
/// the same moment would run. Used for cancellations of operations that never started:
/// cancelling 100,000 queued operations costs a handful of queue hops instead of
/// 100,000, and no allocation per operation (it is stored as is, not in a closure).
enum CoalescedDelivery {
    /// The operations posted to one queue and not yet drained. A class, not a struct:
    /// an array of references needs no value witnesses of its own.
    private final class Batch {
        let queue: DispatchQueue
        var operations: [ServiceOperation]

        init(queue: DispatchQueue, first: ServiceOperation) {
            self.queue = queue
            operations = [first]
        }
    }

    private static let lock = Lock()
    /// Batches not yet drained, one per queue (a host has one callback queue; an app
    /// a few), found by identity. Read and written only under `lock`; the batches' own
    /// `operations` too.
    nonisolated(unsafe) private static var batches: [Batch] = []

    /// Calls `operation.receiveCoalescedDelivery()` on `queue`, batched with the other
    /// operations posted to `queue` meanwhile.
    static func post(_ operation: ServiceOperation, on queue: DispatchQueue) {
        lock.lock()
        var schedule = true
        for batch in batches where batch.queue === queue {
            batch.operations.append(operation)
            schedule = false
            break
        }
        if schedule {
            batches.append(Batch(queue: queue, first: operation))
        }
        lock.unlock()
        if schedule {
            QueueHop.async(queue) { drain(queue) }
        }
    }

    private static func drain(_ queue: DispatchQueue) {
        var operations: [ServiceOperation] = []
        lock.lock()
        if let index = batches.firstIndex(where: { $0.queue === queue }) {
            operations = batches.remove(at: index).operations
        }
        lock.unlock()
        for operation in operations {
            operation.receiveCoalescedDelivery()
        }
    }
}
