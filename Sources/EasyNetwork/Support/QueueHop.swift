import Dispatch

/// `queue.async(execute:)` compiled once: each call of Dispatch's
/// `async(group:qos:flags:execute:)` materializes its three default arguments (a QoS
/// addressor, a flags value, no group) where it is written.
package enum QueueHop {
    /// Runs `work` on `queue`, asynchronously.
    @inline(never)
    package static func async(_ queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}
