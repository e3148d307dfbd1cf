import Foundation

// The phases of a ``NetworkOperation`` (plain numbers: a private enum would bring its own
// conformances and value witnesses, about 1 KB).
private let phaseReady: UInt8 = 0
private let phaseExecuting: UInt8 = 1
private let phaseFinishing: UInt8 = 2
/// Finishing without ever executing (no `isExecuting` change).
private let phaseCancelledBeforeStart: UInt8 = 3
private let phaseFinished: UInt8 = 4

/// The asynchronous `Operation` every EasyNetwork operation stands on.
///
/// Subclass it, override ``execute()`` and call ``finish()`` when the work is done.
/// `start()` is not overridable: it moves the operation to executing exactly once,
/// or finishes it at once when it was cancelled before it started.
///
/// The state lives in a few stored fields behind one lock, and the operation emits KVO
/// for the literal keys `isExecuting` and `isFinished`, which is what `OperationQueue`
/// watches on Apple platforms and the only thing it reacts to on Linux. `isReady` and
/// `isCancelled` are Foundation's own, so dependencies and cancellation behave as documented.
///
/// Subclasses must restate `@unchecked Sendable` (Foundation marks `Operation` so).
open class NetworkOperation: Operation, @unchecked Sendable {  // unchecked: its fields are guarded by `lock`
    /// Guards the fields below and the library subclasses' own state (one lock per
    /// operation, from a shared pool: no allocation per operation).
    private final var lock: OperationLock { OperationLock(for: self) }
    // The fields below are read and written only under `lock`; the lock, not the access
    // checker, keeps them exclusive.
    @exclusivity(unchecked) private final var phase = phaseReady
    @exclusivity(unchecked) private final var finishRequestedBeforeStart = false
    @exclusivity(unchecked) private final var cancelledWhileQueued = false
    /// Whether ``addDependency(_:)`` was ever called (a cancel then looks at `dependencies`).
    @exclusivity(unchecked) private final var addedDependency = false
    /// When a ``NetworkQueue`` took the operation, in seconds since the reference date (a
    /// `Date`'s layout is known only at run time); 0 while none did.
    @exclusivity(unchecked) private final var enqueuedTime: TimeInterval = 0
    /// The queue that took the operation, which lends it a slot while it is parked.
    @exclusivity(unchecked) private final weak var queue: NetworkQueue?
    @exclusivity(unchecked) @usableFromInline final var tagSet: Set<String> = []

    /// Creates an operation in the ready state.
    public override init() {
        super.init()
    }

    /// Takes the operation's lock, which library subclasses share for their own state (see
    /// ``OperationLock``); pair with ``unlockState()``. Nothing under it may run user code,
    /// nor release the last reference to a user's closure or object (its `deinit` would run
    /// under the lock).
    @inline(never) @usableFromInline  // one call per site, not the pool lookup inlined at each of them
    package final func lockState() {
        lock.lock()
    }

    /// Lets go of the lock taken by ``lockState()``.
    @inline(never) @usableFromInline
    package final func unlockState() {
        lock.unlock()
    }

    /// Labels for cancelling operations together with
    /// ``NetworkQueue/cancelOperations(tagged:)`` (a screen, a feature, a user session).
    @_alwaysEmitIntoClient  // in the caller: a program without tags carries none of it
    public final var tags: Set<String> {
        get {
            lockState()
            defer { unlockState() }
            return tagSet
        }
        set {
            lockState()
            tagSet = newValue
            unlockState()
        }
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
        let finishAtOnce = finishRequestedBeforeStart || cancelledWhileQueued
        if ready {
            phase = finishAtOnce ? phaseFinishing : phaseExecuting
        }
        unlockState()
        didChangeValue(forKey: "isExecuting")
        guard ready else { return }
        if finishAtOnce {
            completeFinishing(executed: true)
        } else {
            willExecute()
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
            finishRequestedBeforeStart = true
        }
        unlockState()
        if proceed {
            completeFinishing(executed: true)
        }
    }

    /// Cancels the operation. Subclasses that override it must call `super.cancel()`.
    /// A cancelled operation that has not started finishes, without ``execute()``,
    /// when the queue starts it (one a ``NetworkQueue`` holds is then sure never to run).
    open override func cancel() {
        #if canImport(Darwin)
        super.cancel()
        #else
        cancelLeavingDependencies()
        #endif
        lockState()
        let waiting = enqueuedTime != 0 && phase == phaseReady && !cancelledWhileQueued
        if waiting {
            cancelledWhileQueued = true
        }
        unlockState()
        if waiting {
            // It never runs: report the cancellation now rather than when a slot frees.
            cancelledBeforeStart()
        }
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
    private func cancelLeavingDependencies() {
        lockState()
        let mayBeListed = phase == phaseReady && addedDependency
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
        addedDependency = true
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

    /// The ``NetworkQueue`` that took the operation and when, in one lock (both `nil`
    /// when none did).
    final var enqueueRecord: (queue: NetworkQueue?, at: Date?) {
        lockState()
        let (queue, time) = (self.queue, enqueuedTime)
        unlockState()
        return (queue, time == 0 ? nil : Date(timeIntervalSinceReferenceDate: time))
    }

    /// Called on the starting thread right before ``execute()``; a library hook.
    func willExecute() {}

    /// Called when the operation was cancelled before it started: once on the cancelling
    /// thread when a ``NetworkQueue`` holds it (it will finish without executing), else
    /// right before it finishes cancelled; a library hook.
    func cancelledBeforeStart() {}

    /// Called on the queue of each post of this operation to ``CoalescedDelivery`` (the
    /// callback queue; a seed ``ServiceOperation``'s, the response queue); a library hook.
    func receiveCoalescedDelivery() {}

    /// `executed`: whether `isExecuting` was `true` until now (it changes with `isFinished`).
    @inline(never)  // one copy for start() and finish()
    private func completeFinishing(executed: Bool) {
        lockState()
        let reported = cancelledWhileQueued
        unlockState()
        if !reported, isCancelled {
            cancelledBeforeStart()
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
}
