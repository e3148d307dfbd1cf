import Foundation

// The phases of a ``ServiceOperation`` (plain numbers: a private enum would bring its own
// conformances and value witnesses, about 1 KB).
private let phaseReady: UInt8 = 0
private let phaseExecuting: UInt8 = 1
private let phaseFinishing: UInt8 = 2
/// Finishing without ever executing (no `isExecuting` change).
private let phaseCancelledBeforeStart: UInt8 = 3
private let phaseFinished: UInt8 = 4

// The bits of a ``ServiceOperation``'s `flags` (one field, not one each: every stored
// property is an initialization in each initializer, an entry in the metadata of the class
// and of each subclass, and a field record).
/// `finish()` was called before the operation started.
private let finishRequestedBeforeStart: UInt8 = 1
/// Cancelled while a ``NetworkQueue`` held it, not started: reported at once.
private let cancelledWhileQueued: UInt8 = 2
/// Whether ``ServiceOperation/addDependency(_:)`` was ever called (a cancel then looks at
/// `dependencies`).
private let addedDependency: UInt8 = 4
/// Whether ``ServiceOperation/execute()`` ran or is scheduled to (see
/// ``ServiceOperation/cancelledBeforeStart(delivering:)``).
private let executeClaimed: UInt8 = 8
/// Set by ``ServiceOperation/reportsOwnCancellation()``: a cancellation before start does
/// not run ``ServiceOperation/execute()``.
private let ownCancellationReport: UInt8 = 16

/// The asynchronous `Operation` every EasyNetwork operation stands on, with an
/// ``EasyNetworkService`` for one host: the base of the seed-style operations an SDK
/// author writes.
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
/// Override ``execute()`` and call ``finish()`` when the work is done. `start()` is not
/// overridable: it moves the operation to executing exactly once, or finishes it at once
/// when it was cancelled before it started.
///
/// Cancelling it cancels the request in flight; the request's failure closure gets a
/// cancellation error and the operation finishes right after that closure returns
/// (so one that forgets to call `finish()` on that path still ends). Cancelled before
/// it started (waiting in a queue, say), it finishes without executing when the queue
/// starts it, and its ``execute()`` is still run once, off the queue, with its
/// ``service`` already cancelled: the requests it makes send nothing and their failure
/// closures get the cancellation, so every request calls back once. The operation's
/// `queuePriority` becomes the `URLSessionTask` priority.
///
/// The state lives in a few stored fields behind one lock, and the operation emits KVO
/// for the literal keys `isExecuting` and `isFinished`, which is what `OperationQueue`
/// watches on Apple platforms and the only thing it reacts to on Linux. `isReady` and
/// `isCancelled` are Foundation's own, so dependencies and cancellation behave as documented.
///
/// Subclasses must restate `@unchecked Sendable` (Foundation marks `Operation` so).
open class ServiceOperation: Operation, @unchecked Sendable {  // unchecked: its fields are guarded by the operation lock
    /// The host the operation talks to.
    package let configuration: HostConfiguration
    // The fields below are read and written only under the operation's lock (see
    // `lockState()`); the lock, not the access checker, keeps them exclusive. None has an
    // initial value where it is declared (in a public type each compiles a function).
    @exclusivity(unchecked) private final var phase: UInt8
    /// The bits above (`finishRequestedBeforeStart`, `cancelledWhileQueued`, ...).
    @exclusivity(unchecked) private final var flags: UInt8
    /// When a ``NetworkQueue`` took the operation, in seconds since the reference date (a
    /// `Date`'s layout is known only at run time); 0 while none did.
    @exclusivity(unchecked) private final var enqueuedTime: TimeInterval
    /// The queue that took the operation, which lends it a slot while it is parked.
    @exclusivity(unchecked) private final weak var queue: Optional<NetworkQueue>
    @exclusivity(unchecked) private final var tagSet: Set<String>
    // Made on first use: one cancelled before it ran never makes one (a bulk cancel of
    // queued operations allocates and frees nothing for it).
    @exclusivity(unchecked) private final var madeService: Optional<EasyNetworkService>

    /// An operation for ``HostConfiguration/shared``.
    @inline(never)  // one copy, not another inside the allocating entry
    public override init() {
        configuration = .shared
        phase = phaseReady
        flags = 0
        enqueuedTime = 0
        queue = nil
        tagSet = []
        madeService = nil
        super.init()
    }

    /// An operation for another host.
    @inline(never)  // one copy, not another inside the allocating entry
    public init(configuration: HostConfiguration) {
        self.configuration = configuration
        phase = phaseReady
        flags = 0
        enqueuedTime = 0
        queue = nil
        tagSet = []
        madeService = nil
        super.init()
    }

    @inline(never)  // one copy of the fields' release, not another inside each library subclass's deinit
    deinit {}

    /// Takes the operation's lock, one of a shared pool (see ``OperationLock``: no
    /// allocation per operation), which library subclasses share for their own state; pair
    /// with ``unlockState()``. Nothing under it may run user code, nor release the last
    /// reference to a user's closure or object (its `deinit` would run under the lock).
    @inline(never) @usableFromInline  // one call per site, not the pool lookup inlined at each of them
    package final func lockState() {
        OperationLock(for: self).lock()
    }

    /// Lets go of the lock taken by ``lockState()``.
    @inline(never) @usableFromInline
    package final func unlockState() {
        OperationLock(for: self).unlock()
    }

    /// Labels for cancelling operations together with
    /// ``NetworkQueue/cancelOperations(tagged:)`` (a screen, a feature, a user session).
    @_alwaysEmitIntoClient  // in the caller: a program without tags carries none of it
    public final var tags: Set<String> {
        get { exchangeTags(nil) }
        set { _ = exchangeTags(newValue) }  // the old set is released after the lock is let go
    }

    /// The tags, replaced by `new` unless it is `nil`, under the lock (one function for
    /// the accessors of ``tags``, not a getter, a setter and a `modify` of a field).
    @usableFromInline
    final func exchangeTags(_ new: Set<String>?) -> Set<String> {
        lockState()
        defer { unlockState() }
        let old = tagSet
        if let new {
            tagSet = new
        }
        return old
    }

    /// Makes a cancellation before start finish the operation without running
    /// ``execute()``: for the library's own operations, which report such a cancellation
    /// themselves. Called in their initializer, before the operation is published.
    package final func reportsOwnCancellation() {
        lockState()
        flags |= ownCancellationReport
        unlockState()
    }

    /// The service the operation sends its requests through (made on first use; one made
    /// after the operation was cancelled is cancelled too).
    @inline(never)  // one copy, not another inside each library caller
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

    /// Always `true`: network operations finish when their work calls ``finish()``.
    open override var isAsynchronous: Bool { true }

    /// `true` from the moment `start()` runs ``execute()`` until ``finish()`` completes.
    public final override var isExecuting: Bool {
        lockState()
        defer { unlockState() }
        return phase == phaseExecuting || phase == phaseFinishing
    }

    /// `true` once ``finish()`` has completed; never before the operation started.
    public final override var isFinished: Bool {
        lockState()
        defer { unlockState() }
        return phase == phaseFinished
    }

    /// Starts the operation. Called by the queue; call it yourself only for an
    /// operation that is in no queue. A second call does nothing.
    public final override func start() {
        // Cancelled before it started (a bulk cancel): finish without passing through
        // executing, so the queue sees one `isFinished` change, as for a plain operation.
        if isCancelled {
            lockState()
            let claimed = phase == phaseReady
            if claimed {
                phase = phaseCancelledBeforeStart
            }
            unlockState()
            if claimed {
                completeFinishing(executed: false)
            }
            return
        }
        // Not cancelled when read above (outside the lock: Foundation's own lock is never
        // taken under ours); a cancellation from now on reaches the running work.
        willChangeValue(forKey: "isExecuting")
        lockState()
        let ready = phase == phaseReady
        let finishAtOnce = flags & (finishRequestedBeforeStart | cancelledWhileQueued) != 0
        if ready {
            phase = finishAtOnce ? phaseFinishing : phaseExecuting
            // It runs now: a later cancellation does not run it again.
            if !finishAtOnce {
                flags |= executeClaimed
            }
        }
        unlockState()
        didChangeValue(forKey: "isExecuting")
        guard ready else { return }
        if finishAtOnce {
            completeFinishing(executed: true)
        } else {
            prepareService()
            execute()
        }
    }

    /// Does the operation's work. Override it and call ``finish()`` when done,
    /// on every path. The default implementation finishes at once.
    open func execute() {
        finish()
    }

    /// Marks the operation finished. Safe to call from any thread and any number of
    /// times: only the first call counts. Called before the operation started, it is
    /// remembered and the operation finishes when the queue starts it.
    @inline(never)  // a call at each of the library's sites
    public final func finish() {
        lockState()
        let proceed = phase == phaseExecuting
        if proceed {
            phase = phaseFinishing
        } else if phase == phaseReady {
            flags |= finishRequestedBeforeStart
        }
        unlockState()
        if proceed {
            completeFinishing(executed: true)
        }
    }

    /// Cancels the operation and the request in flight. Subclasses that override it must
    /// call `super.cancel()`. A cancelled operation that has not started finishes, without
    /// executing, when the queue starts it (one a ``NetworkQueue`` holds is then sure
    /// never to run).
    open override func cancel() {
        #if canImport(Darwin)
        super.cancel()
        #else
        cancelLeavingDependencies()
        #endif
        lockState()
        let waiting = enqueuedTime != 0 && phase == phaseReady && flags & cancelledWhileQueued == 0
        if waiting {
            flags |= cancelledWhileQueued
        }
        // (`cancelledBeforeStart(delivering: false)` makes no service: it only posts.)
        let service = madeService
        unlockState()
        if waiting {
            // It never runs: report the cancellation now rather than when a slot frees.
            cancelledBeforeStart(delivering: false)
        }
        service?.cancel()
    }

    #if !canImport(Darwin)
    /// `super.cancel()`, with the operation first taken off the lists of the dependencies
    /// it is still waiting for.
    ///
    /// swift-corelibs-foundation lists an operation in each of its dependencies without
    /// retaining it, and reaches it through that list when the dependency finishes; its
    /// `cancel()` makes a waiting operation ready at once. So a cancelled operation could
    /// start, finish and be freed while a dependency still lists it, and that dependency's
    /// finish then read freed memory: a crash in `Operation.observeValue` (see the Linux
    /// notes). Taken off before the cancel (`removeDependency` waits for a dependency that
    /// is walking its list) and listed again after it (corelibs links a cancelled operation
    /// to nothing), the operation is never reached once it can start, and `dependencies`
    /// is what it was.
    private final func cancelLeavingDependencies() {
        lockState()
        let mayBeListed = phase == phaseReady && flags & addedDependency != 0
        unlockState()
        // Only the first cancel of an operation that has not started (a running one's
        // dependencies have finished and let go of it already) and was given dependencies
        // (most are not: a bulk cancel does not ask Foundation for them).
        let dependencies = mayBeListed && !isCancelled ? self.dependencies : []
        for dependency in dependencies {
            removeDependency(dependency)
        }
        super.cancel()
        for dependency in dependencies {
            addDependency(dependency)
        }
    }
    #endif

    /// Makes the operation wait until `operation` has finished, as `Operation` does.
    /// Subclasses that override it must call `super.addDependency(_:)`.
    open override func addDependency(_ operation: Operation) {
        lockState()
        flags |= addedDependency
        unlockState()
        super.addDependency(operation)
    }

    /// Marks the operation as handed to a queue; `false` when it already was, so a
    /// second `addOperation` is ignored instead of crashing Foundation.
    final func claimEnqueue(by queue: NetworkQueue) -> Bool {
        let now = Date().timeIntervalSinceReferenceDate
        lockState()
        defer { unlockState() }
        guard enqueuedTime == 0, phase == phaseReady else { return false }
        enqueuedTime = now
        self.queue = queue
        return true
    }

    /// Hands the service what it needs from the operation: the queue that lends it a
    /// slot, the queued time, the task priority, and that a delivered cancellation
    /// finishes the operation.
    private final func prepareService() {
        let service = self.service
        lockState()
        let (queue, time) = (self.queue, enqueuedTime)
        unlockState()
        // Registered when the operation starts executing, not at init: an operation
        // cancelled before it started sends nothing, and stays free of the weak reference
        // (which would make every retain and release of it slower, measurable in a bulk cancel).
        service.prepare(
            lender: queue, queuedAt: time == 0 ? nil : Date(timeIntervalSinceReferenceDate: time),
            priority: Self.taskPriority(for: queuePriority)
        ) { [weak self] in
            guard let self, self.isCancelled else { return }
            self.finish()
        }
    }

    /// Called when the operation was cancelled before it started (`delivering` is `false`):
    /// once on the cancelling thread when a ``NetworkQueue`` holds it (it will finish
    /// without executing), else right before it finishes cancelled; and then (`delivering`
    /// is `true`) on the queue of this operation's ``postCancellation(on:)`` (the callback
    /// queue; a seed operation's, the response queue). A library hook: one
    /// overridable method for both calls, so one vtable slot (repeated in every subclass).
    ///
    /// Here: runs ``execute()`` once, off the queue, so that the requests it makes, on its cancelled service,
    /// call their failure closures with the cancellation and send nothing. The operation
    /// itself finishes as any cancelled one does, when the queue starts it, whatever
    /// `execute()` does.
    func cancelledBeforeStart(delivering: Bool) {
        if delivering {
            prepareService()
            execute()
            return
        }
        lockState()
        let first = flags & (executeClaimed | ownCancellationReport) == 0
        flags |= executeClaimed
        unlockState()
        if first {
            postCancellation(on: ResponseStage.queue)
        }
    }

    /// Calls ``cancelledBeforeStart(delivering:)`` with `true` on `queue`, once: one plain
    /// hop per operation, so on a serial queue the cancellations arrive in the order posted,
    /// never later than a `queue.async` posted at the same moment.
    @inline(never)  // one closure, not a copy in each caller
    final func postCancellation(on queue: DispatchQueue) {
        QueueHop.async(queue) { [self] in
            cancelledBeforeStart(delivering: true)
        }
    }

    /// `executed`: whether `isExecuting` was `true` until now (it changes with `isFinished`).
    @inline(never)  // one copy for start() and finish()
    private final func completeFinishing(executed: Bool) {
        lockState()
        let reported = flags & cancelledWhileQueued != 0
        unlockState()
        if !reported, isCancelled {
            cancelledBeforeStart(delivering: false)
        }
        if executed {
            willChangeValue(forKey: "isExecuting")
        }
        willChangeValue(forKey: "isFinished")
        lockState()
        phase = phaseFinished
        unlockState()
        if executed {
            didChangeValue(forKey: "isExecuting")
        }
        didChangeValue(forKey: "isFinished")
    }

    /// The `URLSessionTask` priority matching an operation's queue priority (`nil`: normal).
    static func taskPriority(for priority: Operation.QueuePriority) -> Float? {
        let raw = priority.rawValue  // -8, -4, 0, 4, 8
        return raw == 0 ? nil : raw <= -8 ? 0.1 : raw <= -4 ? 0.25 : raw < 4 ? 0.5 : raw < 8 ? 0.75 : 0.9
    }
}
