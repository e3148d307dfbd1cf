import Foundation

/// Hands operations' cancellations to a callback queue in batches: the first operation
/// posted to an idle queue schedules one drain, and those posted before that drain runs
/// join it.
///
/// Each post is delivered exactly once (``NetworkOperation/receiveCoalescedDelivery()``),
/// on its queue, in the order posted; never later than a plain `queue.async` posted at
/// the same moment would run. Used for cancellations of operations that never started:
/// cancelling 100,000 queued operations costs a handful of queue hops instead of
/// 100,000, and no allocation per operation (it is stored as is, not in a closure).
enum CoalescedDelivery {
    private struct Pending {
        let queue: DispatchQueue
        var operations: [NetworkOperation]
    }

    /// Batches not yet drained, one per queue (a host has one callback queue; an app
    /// a few), found by identity.
    private static let pending = Protected([Pending]())

    /// Calls `operation.receiveCoalescedDelivery()` on `queue`, batched with the other
    /// operations posted to `queue` meanwhile.
    static func post(_ operation: NetworkOperation, on queue: DispatchQueue) {
        let schedule: Bool = pending.write { batches in
            if let index = batches.firstIndex(where: { $0.queue === queue }) {
                batches[index].operations.append(operation)
                return false
            }
            batches.append(Pending(queue: queue, operations: [operation]))
            return true
        }
        if schedule {
            queue.async { drain(queue) }
        }
    }

    private static func drain(_ queue: DispatchQueue) {
        let operations: [NetworkOperation] = pending.write { batches in
            guard let index = batches.firstIndex(where: { $0.queue === queue }) else { return [] }
            return batches.remove(at: index).operations
        }
        for operation in operations {
            operation.receiveCoalescedDelivery()
        }
    }
}
