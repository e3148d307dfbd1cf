#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// One run of a `RequestChain`: one operation per step, each depending on the one
/// before, and a last operation that reports once all have finished.
final class ChainRun: @unchecked Sendable {
    // unchecked: the mutable fields below are read and written only under `lock`;
    // the `let`s and `operations` are set in init and never change.
    /// Receives the run's end.
    typealias Report = @Sendable (ChainEnd) -> Void

    private let configuration: HostConfiguration
    /// One per step; filled in init, before the run is shared, and never changed.
    private var operations: [Operation] = []
    private let lock = Lock()
    private var results: [any Sendable] = []
    /// The step that stopped the chain and its error (`failure` `nil`: none did).
    private var failedStep = 0
    private var failure: NetworkError?
    private var ended = false
    private var cancelled = false
    private var reported = false
    private var report: Report?

    init(last: ChainLink) {
        configuration = last.configuration
        add(last)
    }

    /// Adds the operations of `link`'s steps, first to last, each depending on the one
    /// before; in init, before the run is shared.
    private func add(_ link: ChainLink) {
        if let previous = link.previous {
            add(previous)
        }
        let operation = ChainStepOperation<ChainRun>(index: operations.count, step: link, run: self)
        if let before = operations.last {
            operation.addDependency(before)
        }
        operations.append(operation)
    }

    /// Queues every step and a finisher that calls `report` once, on the host's
    /// callback queue, after all steps have finished (also after a
    /// `cancelAllOperations()`: see ``ChainFinisher``).
    func enqueue(on queue: NetworkQueue, report: @escaping Report) {
        lock.lock()
        self.report = report
        lock.unlock()
        let finisher = ChainFinisher<ChainRun>(run: self)
        for operation in operations {
            finisher.addDependency(operation)
        }
        // The finisher first, while no step can have finished: swift-corelibs-foundation
        // can leave an operation that is added as its last dependency finishes waiting,
        // ready, until something else makes the queue look again (see the Linux notes).
        queue.operationQueue.addOperation(finisher)
        queue.addOperations(operations, waitUntilFinished: false)
    }

    /// Cancels every step. Sticky: called before ``enqueue(on:report:)``, the steps are
    /// queued already cancelled and none runs; called later, no step starts after it.
    func cancel() {
        lock.lock()
        cancelled = true
        lock.unlock()
        cancelSteps(from: 0)
    }

    /// What step `index` builds its request from: `.some(nil)` for the first step, the
    /// previous step's result, or `nil` when the step must not run (the chain stopped:
    /// failed, cancelled or ended early; or the step before never answered, cancelled with
    /// the whole queue: the chain then reports a cancellation there).
    func input(for index: Int) -> (any Sendable)?? {
        lock.lock()
        defer { lock.unlock() }
        guard failure == nil, !ended, !cancelled, results.count == index else { return nil }
        return .some(index > 0 ? results[index - 1] : nil)
    }

    /// Step `index` answered `value`, or failed with `error`, or (neither) its builder
    /// ended the chain. A failure or an end stops the later steps.
    func step(_ index: Int, value: (any Sendable)?, error: NetworkError?) {
        lock.lock()
        var stops = false
        if let error {
            stops = failure == nil && !ended
            if stops {
                failure = error
                failedStep = index
            }
        } else if let value {
            results.append(value)
        } else {
            ended = true
            stops = true
        }
        lock.unlock()
        if stops {
            cancelSteps(from: index + 1)
        }
    }

    /// What an error a builder threw becomes: a ``NetworkError`` as is, any other
    /// error named with its step (out of line: the operation's code is generic).
    @inline(never)
    static func buildError(_ error: any Error, step index: Int) -> NetworkError {
        error as? NetworkError ?? NetworkError(kind: .invalidRequest, message: "step " + String(index + 1) + " could not build its request: " + error.localizedDescription, underlyingError: error)
    }

    /// Cancels the steps from `first` on (one loop: a `forEach` compiles a closure).
    private func cancelSteps(from first: Int) {
        var index = first
        while index < operations.count {
            operations[index].cancel()
            index += 1
        }
    }

    /// Every step has finished (``ChainFinisher``): reports on the host's callback queue.
    @inline(never)  // in the finisher's generic code, a call
    func stepsFinished() {
        configuration.deliveryQueue.async { self.deliver() }
    }

    private func deliver() {
        lock.lock()
        guard !reported, let report else {
            lock.unlock()
            return
        }
        reported = true
        if failure == nil, !ended, results.count < operations.count {
            // Cancelled before a step could report: name the first step that did not run.
            failure = NetworkError(kind: .cancelled)
            failedStep = results.count
        }
        let end = ChainEnd(results: results, endedEarly: ended, step: failedStep, error: failure)
        lock.unlock()
        report(end)
    }
}

/// One step of a chain as an operation on the queue.
///
/// Generic (over its run's type, `ChainRun`), only so that its metadata is made at run
/// time from its superclass's, whereas a plain subclass of `Operation` writes the whole
/// `Operation` vtable into the binary with a relocation per entry (about 4 KB).
final class ChainStepOperation<Run: AnyObject>: ServiceOperation, @unchecked Sendable {
    // unchecked: an Operation subclass (Foundation's own state is thread-safe); its
    // fields are set in init and never change.
    private let index: Int
    private let step: ChainLink
    private weak var run: ChainRun?

    init(index: Int, step: ChainLink, run: ChainRun) {
        self.index = index
        self.step = step
        self.run = run
        super.init(configuration: step.configuration)
        reportsOwnCancellation()  // the chain reports its cancellation
    }

    override func execute() {
        guard let run, let previous = run.input(for: index) else {
            return finish()
        }
        let index = index
        let plan: ChainStep?
        do {
            plan = try step.plan(after: previous)
        } catch {
            run.step(index, value: nil, error: ChainRun.buildError(error, step: index))
            return finish()
        }
        guard let plan else {
            run.step(index, value: nil, error: nil)
            return finish()
        }
        service.perform(plan.request, transform: plan.decode) { [self] result in
            switch result {
            case .success(let value): run.step(index, value: value, error: nil)
            case .failure(let error): run.step(index, value: nil, error: error)
            }
            finish()
        }
    }
}

/// How a chain run ended, in one immutable object: every step's result, whether a builder
/// ended it early, and the step that stopped it with its error (`error` `nil`: none did).
/// What a ``ChainOutcome`` and a ``ChainError`` carry.
final class ChainEnd: Sendable {
    let results: [any Sendable]
    let endedEarly: Bool
    let step: Int
    let error: NetworkError?

    init(results: [any Sendable], endedEarly: Bool, step: Int, error: NetworkError?) {
        self.results = results
        self.endedEarly = endedEarly
        self.step = step
        self.error = error
    }
}
