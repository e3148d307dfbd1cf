import Foundation

/// Hands operations' cancellations to a callback queue in batches: the first operation
/// posted schedules one drain on its queue, and those posted to the same queue before
/// that drain runs join it.
///
/// Each post is delivered exactly once (``ServiceOperation/cancelledBeforeStart(delivering:)``),
/// on its queue, in the order posted; never later than a plain `queue.async` posted at
/// the same moment would run. Used for cancellations of operations that never started:
/// cancelling 100,000 queued operations costs a handful of queue hops instead of
/// 100,000, and no allocation per operation (it is stored as is, not in a closure).
///
/// One batch is open at a time, the last one made: a post to another queue opens a new
/// batch (with its own drain), so cancellations that alternate between queues cost a hop
/// per change of queue. A bulk cancel posts to one queue (a host's callback queue, or
/// the response queue for subclasses of ``ServiceOperation``), in one batch.
enum CoalescedDelivery {
    /// The operations posted to one queue, drained by one hop. A class, not a struct:
    /// an array of references needs no value witnesses of its own.
    private final class Batch: @unchecked Sendable {  // unchecked: `operations` is read and written only under `lock`
        let queue: DispatchQueue
        @exclusivity(unchecked) var operations: [ServiceOperation]

        init(queue: DispatchQueue) {
            self.queue = queue
            operations = []
        }
    }

    private static let lock = Lock()
    /// The batch that the next post to its queue joins; `nil` once its drain has begun.
    /// Read and written only under `lock`; the batches' own `operations` too.
    @exclusivity(unchecked) nonisolated(unsafe) private static var open: Batch?

    /// Calls `operation.cancelledBeforeStart(delivering: true)` on `queue`, batched with the other
    /// operations posted to `queue` meanwhile.
    static func post(_ operation: ServiceOperation, on queue: DispatchQueue) {
        lock.lock()
        let joined = open.flatMap { $0.queue === queue ? $0 : nil }
        let batch = joined ?? Batch(queue: queue)
        open = batch
        batch.operations.append(operation)
        lock.unlock()
        if joined == nil {
            QueueHop.async(queue) { drain(batch) }
        }
    }

    private static func drain(_ batch: Batch) {
        lock.lock()
        if open === batch {
            open = nil
        }
        let operations = batch.operations
        batch.operations = []
        lock.unlock()
        for operation in operations {
            operation.cancelledBeforeStart(delivering: true)
        }
    }
}
