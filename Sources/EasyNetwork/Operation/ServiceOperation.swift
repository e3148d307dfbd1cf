import Foundation

/// A ``NetworkOperation`` with an ``EasyNetworkService`` for one host: the base of
/// the seed-style operations an SDK author writes.
///
/// ```swift
/// final class SignInOperation: ServiceOperation, @unchecked Sendable {
///     override func execute() {
///         service.request(request, success: { [weak self] in self?.handleSuccess($0) },
///                         failure: { [weak self] in self?.handleFailure($0) })
///     }
/// }
/// ```
///
/// Cancelling it cancels the request in flight; the request's failure closure gets a
/// cancellation error and the operation finishes right after that closure returns
/// (so one that forgets to call `finish()` on that path still ends). Cancelled before
/// it started (waiting in a queue, say), it finishes without executing when the queue
/// starts it, and its ``NetworkOperation/execute()`` is still run once, off the queue, with its
/// ``service`` already cancelled: the requests it makes send nothing and their failure
/// closures get the cancellation, so every request calls back once. The operation's
/// `queuePriority` becomes the `URLSessionTask` priority.
open class ServiceOperation: NetworkOperation, @unchecked Sendable {  // unchecked: an Operation subclass; `madeService`, `executeClaimed` guarded by the operation lock
    /// The host the operation talks to.
    package let configuration: HostConfiguration
    // Made on first use, under the operation's lock: one cancelled before it ran never
    // makes one (a bulk cancel of queued operations allocates and frees nothing for it).
    @exclusivity(unchecked) private final var madeService: Optional<EasyNetworkService>
    /// Whether ``execute()`` ran or is scheduled to (see ``cancelledBeforeStart()``).
    @exclusivity(unchecked) private final var executeClaimed: Bool
    /// Whether a cancellation before start runs ``execute()`` so that its requests report
    /// it: the library's own operations, which report it themselves, set it to `false` in
    /// their initializer (never later: it is read without the lock).
    @exclusivity(unchecked) package final var executesWhenCancelled: Bool

    /// The service the operation sends its requests through (made on first use; one made
    /// after the operation was cancelled is cancelled too).
    public final var service: EasyNetworkService {
        lockState()
        let found = madeService
        let service = found ?? EasyNetworkService(configuration)
        if found == nil {
            madeService = service
        }
        unlockState()
        // `cancel()` sets `isCancelled` before it looks for the service under the lock:
        // either it found this one, or this check sees the cancellation.
        if found == nil, isCancelled {
            service.cancel()
        }
        return service
    }

    /// An operation for ``HostConfiguration/shared``.
    @inline(never)  // one copy, not another inside the allocating entry
    public override init() {
        configuration = .shared
        madeService = nil
        executeClaimed = false
        executesWhenCancelled = true
        super.init()
    }

    /// An operation for another host.
    @inline(never)  // one copy, not another inside the allocating entry
    public init(configuration: HostConfiguration) {
        self.configuration = configuration
        madeService = nil
        executeClaimed = false
        executesWhenCancelled = true
        super.init()
    }


    /// Cancels the operation and the request in flight. Call `super` when overriding.
    open override func cancel() {
        super.cancel()
        lockState()
        let service = madeService
        unlockState()
        service?.cancel()
    }

    override func willExecute() {
        if executesWhenCancelled {
            lockState()
            executeClaimed = true
            unlockState()
        }
        prepareService()
    }

    /// Hands the service what it needs from the operation: the queue that lends it a
    /// slot, the queued time, the task priority, and that a delivered cancellation
    /// finishes the operation.
    private func prepareService() {
        let service = self.service
        let (queue, enqueuedAt) = enqueueRecord
        // Registered when the operation starts executing, not at init: an operation
        // cancelled before it started sends nothing, and stays free of the weak reference
        // (which would make every retain and release of it slower, measurable in a bulk cancel).
        service.prepare(
            lender: queue, queuedAt: enqueuedAt,
            priority: Self.taskPriority(for: queuePriority)
        ) { [weak self] in
            guard let self, self.isCancelled else { return }
            self.finish()
        }
    }

    /// Cancelled before it started: runs ``execute()`` once, off the queue and batched
    /// with other such operations (``CoalescedDelivery``), so that the requests it makes,
    /// on its cancelled service, call their failure closures with the cancellation and
    /// send nothing. The operation itself finishes as any cancelled one does, when the
    /// queue starts it, whatever `execute()` does.
    override func cancelledBeforeStart() {
        guard executesWhenCancelled else { return }
        lockState()
        let first = !executeClaimed
        executeClaimed = true
        unlockState()
        if first {
            CoalescedDelivery.post(self, on: ResponseStage.queue)
        }
    }

    override func receiveCoalescedDelivery() {
        prepareService()
        execute()
    }

    /// The `URLSessionTask` priority matching an operation's queue priority (`nil`: normal).
    static func taskPriority(for priority: Operation.QueuePriority) -> Float? {
        let raw = priority.rawValue  // -8, -4, 0, 4, 8
        return raw == 0 ? nil : raw <= -8 ? 0.1 : raw <= -4 ? 0.25 : raw < 4 ? 0.5 : raw < 8 ? 0.75 : 0.9
    }
}
