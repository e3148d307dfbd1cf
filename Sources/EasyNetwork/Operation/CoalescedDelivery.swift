import Foundation

/// Hands blocks to a callback queue in batches: the first block posted to an idle queue
/// schedules one drain, and blocks posted before that drain runs join it.
///
/// Each block runs exactly once, on its queue, in the order posted; a block never runs
/// later than a plain `queue.async` posted at the same moment would. Used for
/// cancellations of operations that never started: cancelling 100,000 queued operations
/// costs a handful of queue hops instead of 100,000.
enum CoalescedDelivery {
    private struct Pending {
        let queue: DispatchQueue
        var blocks: [@Sendable () -> Void]
    }

    private static let pending = Protected([ObjectIdentifier: Pending]())

    /// Runs `block` on `queue`, batched with other blocks posted to `queue` meanwhile.
    static func async(on queue: DispatchQueue, _ block: @escaping @Sendable () -> Void) {
        let key = ObjectIdentifier(queue)
        let schedule: Bool = pending.write { table in
            if table[key] != nil {
                table[key]?.blocks.append(block)
                return false
            }
            table[key] = Pending(queue: queue, blocks: [block])
            return true
        }
        if schedule {
            queue.async { drain(key) }
        }
    }

    private static func drain(_ key: ObjectIdentifier) {
        let blocks = pending.write { $0.removeValue(forKey: key)?.blocks } ?? []
        for block in blocks {
            block()
        }
    }
}
