import Foundation

/// The asynchronous `Operation` every EasyNetwork operation stands on.
///
/// Subclass it, override ``execute()`` and call ``finish()`` when the work is done.
/// `start()` is not overridable: it moves the operation to executing exactly once,
/// or finishes it at once when it was cancelled before it started.
///
/// The state lives in one enum behind one lock, and the operation emits KVO for the
/// literal keys `isExecuting` and `isFinished`, which is what `OperationQueue` watches on
/// Apple platforms and the only thing it reacts to on Linux. `isReady` and `isCancelled`
/// are Foundation's own, so dependencies and cancellation behave as documented.
///
/// Subclasses must restate `@unchecked Sendable` (Foundation marks `Operation` so).
open class NetworkOperation: Operation, @unchecked Sendable {
    private enum Phase {
        /// `cancelledBeforeStart`: finishing without ever executing (no `isExecuting` change).
        case ready, executing, finishing, cancelledBeforeStart, finished
    }

    private struct State {
        var phase: Phase = .ready
        var finishRequestedBeforeStart = false
        var enqueued = false
        var cancelledWhileQueued = false
        /// Seconds since the reference date (a `Date`'s layout is known only at run time,
        /// which would make every access to the state look up type metadata).
        var enqueuedAt: TimeInterval?
        /// The queue that took the operation, which lends it a slot while it is parked.
        weak var queue: NetworkQueue?
        var tags: Set<String> = []
    }

    /// Guards `state` and the library subclasses' own state (one lock per operation, from
    /// a shared pool: no allocation per operation).
    private var lock: OperationLock { OperationLock(for: self) }
    // Read and written only under `lock`; the lock, not the access checker, keeps it exclusive.
    @exclusivity(unchecked) private var stateStorage = State()

    /// Creates an operation in the ready state.
    public override init() {
        super.init()
    }

    /// Runs `body` under the operation's lock, which library subclasses share for their
    /// own state (see ``OperationLock``). `body` must not run user code, nor release the
    /// last reference to a user's closure or object (its `deinit` would run under the lock).
    final func withLock<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock(body)
    }

    /// Takes the lock of ``withLock(_:)`` (for a subclass that must not pass a closure
    /// value through a generic helper); pair with ``unlockState()``.
    final func lockState() {
        lock.lock()
    }

    /// Lets go of the lock taken by ``lockState()``.
    final func unlockState() {
        lock.unlock()
    }

    /// The operation's state, read or changed under the lock.
    private var state: StateAccess { StateAccess(operation: self) }

    /// `state.read { }` / `state.write { }` over the operation's lock.
    private struct StateAccess {
        unowned(unsafe) let operation: NetworkOperation

        /// Lends the state rather than copying it.
        func read<T>(_ body: (inout State) -> T) -> T {
            operation.lock.withLock { body(&operation.stateStorage) }
        }

        @discardableResult
        func write<T>(_ body: (inout State) -> T) -> T {
            operation.lock.withLock { body(&operation.stateStorage) }
        }
    }

    /// Labels for cancelling operations together with
    /// ``NetworkQueue/cancelOperations(tagged:)`` (a screen, a feature, a user session).
    public var tags: Set<String> {
        get { state.read { $0.tags } }
        set { state.write { $0.tags = newValue } }
    }

    /// Always `true`: network operations finish when their work calls ``finish()``.
    open override var isAsynchronous: Bool { true }

    /// `true` from the moment `start()` runs ``execute()`` until ``finish()`` completes.
    public final override var isExecuting: Bool {
        state.read { $0.phase == .executing || $0.phase == .finishing }
    }

    /// `true` once ``finish()`` has completed; never before the operation started.
    public final override var isFinished: Bool {
        state.read { $0.phase == .finished }
    }

    /// Starts the operation. Called by the queue; call it yourself only for an
    /// operation that is in no queue. A second call does nothing.
    public final override func start() {
        // Cancelled before it started (a bulk cancel): finish without passing through
        // executing, so the queue sees one `isFinished` change, as for a plain operation.
        if isCancelled {
            let claimed: Bool = state.write { state in
                guard state.phase == .ready else { return false }
                state.phase = .cancelledBeforeStart
                return true
            }
            if claimed {
                completeFinishing(executed: false)
            }
            return
        }
        enum Action { case ignore, finish, execute }
        let cancelled = isCancelled
        willChangeValue(forKey: "isExecuting")
        let action: Action = state.write { state in
            guard state.phase == .ready else { return .ignore }
            if cancelled || state.finishRequestedBeforeStart || state.cancelledWhileQueued {
                state.phase = .finishing
                return .finish
            }
            state.phase = .executing
            return .execute
        }
        didChangeValue(forKey: "isExecuting")
        switch action {
        case .ignore:
            return
        case .finish:
            completeFinishing(executed: true)
        case .execute:
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
    public final func finish() {
        let proceed: Bool = state.write { state in
            switch state.phase {
            case .ready:
                state.finishRequestedBeforeStart = true
                return false
            case .executing:
                state.phase = .finishing
                return true
            case .finishing, .cancelledBeforeStart, .finished:
                return false
            }
        }
        if proceed {
            completeFinishing(executed: true)
        }
    }

    /// Cancels the operation. Subclasses that override it must call `super.cancel()`.
    /// A cancelled operation that has not started finishes, without ``execute()``,
    /// when the queue starts it (one a ``NetworkQueue`` holds is then sure never to run).
    open override func cancel() {
        super.cancel()
        let waiting: Bool = state.write { state in
            guard state.enqueued, state.phase == .ready, !state.cancelledWhileQueued else { return false }
            state.cancelledWhileQueued = true
            return true
        }
        if waiting {
            didCancelWhileQueued()
        }
    }

    /// Marks the operation as handed to a queue; `false` when it already was, so a
    /// second `addOperation` is ignored instead of crashing Foundation.
    func claimEnqueue(by queue: NetworkQueue) -> Bool {
        state.write { state in
            guard !state.enqueued, state.phase == .ready else { return false }
            state.enqueued = true
            state.enqueuedAt = Date().timeIntervalSinceReferenceDate
            state.queue = queue
            return true
        }
    }

    /// When a ``NetworkQueue`` took the operation, for metrics.
    var enqueuedAt: Date? {
        state.read { $0.enqueuedAt }.map(Date.init(timeIntervalSinceReferenceDate:))
    }

    /// The ``NetworkQueue`` that took the operation, if one did.
    var networkQueue: NetworkQueue? {
        state.read { $0.queue }
    }

    /// Called on the starting thread right before ``execute()``; a library hook.
    func willExecute() {}

    /// Called once, right before the operation becomes finished; a library hook.
    func willFinish() {}

    /// Whether ``didCancelWhileQueued()`` was called.
    var wasCancelledWhileQueued: Bool {
        state.read { $0.cancelledWhileQueued }
    }

    /// Called once, on the cancelling thread, when an operation a ``NetworkQueue`` holds
    /// is cancelled before it started (it will finish without executing); a library hook.
    func didCancelWhileQueued() {}

    /// Called on the callback queue for each post of this operation to
    /// ``CoalescedDelivery``; a library hook.
    func receiveCoalescedDelivery() {}

    /// `executed`: whether `isExecuting` was `true` until now (it changes with `isFinished`).
    private func completeFinishing(executed: Bool) {
        willFinish()
        if executed {
            willChangeValue(forKey: "isExecuting")
        }
        willChangeValue(forKey: "isFinished")
        state.write { $0.phase = .finished }
        if executed {
            didChangeValue(forKey: "isExecuting")
        }
        didChangeValue(forKey: "isFinished")
    }
}
