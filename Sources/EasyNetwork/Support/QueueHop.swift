import Dispatch

/// `queue.async(execute:)` compiled once (`QueueHop.async(queue) { ... }`): each call of
/// Dispatch's `async(group:qos:flags:execute:)` materializes its three default arguments (a
/// QoS addressor, a flags value, no group) where it is written. A name for `DispatchQueue`,
/// whose extension below holds the one function: no namespace type of the core's (metadata,
/// a descriptor and an accessor in every program).
package typealias QueueHop = DispatchQueue

extension DispatchQueue {
    /// Runs `work` on `queue`, asynchronously.
    @inline(never)
    package static func async(_ queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}
