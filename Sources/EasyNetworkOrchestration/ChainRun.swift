#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// One run of a `RequestChain`: one operation per step, each depending on the one
/// before, and the run itself, the last operation, which depends on every step and
/// reports once all of them have finished, whatever was cancelled meanwhile.
///
/// As an operation it ignores `cancel()` (``stop()`` stops the chain).
/// `NetworkQueue.cancelAllOperations()` cancels every operation in the queue, this one
/// too; a cancelled operation is started at once, ends without running its body (the
/// chain would never report), and is freed while the steps still list it as waiting for
/// them: on Linux, where swift-corelibs-foundation reaches an operation's dependents
/// through a list that does not retain them, the next step to finish then reads freed
/// memory and the process crashes. The steps are cancelled with the rest; the run waits
/// for them and reports.
///
/// Generic (over nothing it uses: `Tag` is always `Void`), as ``ChainStepOperation`` is,
/// only so that its metadata is made at run time from its superclass's, whereas a plain
/// subclass of `Operation` writes the whole `Operation` vtable into the binary with a
/// relocation per entry (about 4 KB).
final class ChainRun<Tag>: Operation, @unchecked Sendable {
    // unchecked: the mutable fields below are read and written only under `lock`;
    // the `let`s and `operations` are set in init and never change (Foundation's own
    // state is thread-safe).
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
    /// Set by ``enqueue(on:report:)``, taken by the one report.
    private var report: Report?

    init(last: ChainLink) {
        configuration = last.configuration
        super.init()
        add(last)
    }

    /// Adds the operations of `link`'s steps, first to last, each depending on the one
    /// before, and the run on each; in init, before the run is shared.
    private func add(_ link: ChainLink) {
        if let previous = link.previous {
            add(previous)
        }
        let operation = ChainStepOperation<Tag>(index: operations.count, step: link, run: self)
        if let before = operations.last {
            operation.addDependency(before)
        }
        operations.append(operation)
        addDependency(operation)  // the run reports once every step has finished
    }

    /// Queues every step and the run, which calls `report` once, on the host's callback
    /// queue, after all steps have finished (also after a `cancelAllOperations()`: see
    /// above). Called once, on a new run.
    func enqueue(on queue: NetworkQueue, report: @escaping Report) {
        lock.lock()
        self.report = report
        lock.unlock()
        // The run first, then the steps last to first: each is added while no step it
        // depends on can have finished (none of them is queued yet). swift-corelibs-
        // foundation can leave an operation that is added as its last dependency finishes
        // waiting, ready, until something else makes the queue look again (see the Linux
        // notes). One at a time through the queue's out-of-line `addOperation`: its
        // inlined `addOperations` is code of its own here.
        queue.operationQueue.addOperation(self)
        var index = operations.count
        while index > 0 {
            index -= 1
            queue.addOperation(operations[index])
        }
    }

    /// Every step has finished: reports on the host's callback queue.
    override func main() {
        QueueHop.async(configuration.deliveryQueue) { self.deliver() }
    }

    /// Does nothing: the run ends when the steps are done (see above).
    override func cancel() {}

    /// Cancels every step. Sticky: called before ``enqueue(on:report:)``, the steps are
    /// queued already cancelled and none runs; called later, no step starts after it.
    func stop() {
        lock.lock()
        cancelled = true
        lock.unlock()
        cancelSteps(from: 0)
    }

    /// Whether step `index` runs, and then what it builds its request from (`previous`:
    /// the previous step's result, `nil` for the first step). It does not run when the
    /// chain stopped (failed, cancelled or ended early) or the step before never answered
    /// (cancelled with the whole queue: the chain then reports a cancellation there).
    func runs(_ index: Int, after previous: inout (any Sendable)?) -> Bool {
        lock.lock()
        let runs = failure == nil && !ended && !cancelled && results.count == index
        if runs, index > 0 {
            previous = results[index - 1]
        }
        lock.unlock()
        return runs
    }

    /// Step `index` answered (`.success`) or failed, or (`nil`) its builder ended the
    /// chain. A failure or an end stops the later steps.
    func step(_ index: Int, _ result: Result<any Sendable, NetworkError>?) {
        lock.lock()
        var stops = true
        switch result {
        case .success(let value)?:
            results.append(value)
            stops = false
        case .failure(let error)?:
            stops = failure == nil && !ended
            if stops {
                failure = error
                failedStep = index
            }
        case nil:
            ended = true
        }
        lock.unlock()
        if stops {
            cancelSteps(from: index + 1)
        }
    }

    /// Cancels the steps from `first` on (one loop: a `forEach` compiles a closure).
    private func cancelSteps(from first: Int) {
        var index = first
        while index < operations.count {
            operations[index].cancel()
            index += 1
        }
    }

    private func deliver() {
        lock.lock()
        guard let report = report.take() else {
            lock.unlock()
            return
        }
        if failure == nil, !ended, results.count < operations.count {
            // Cancelled before a step could report: name the first step that did not run.
            failure = orchestrationError(.cancelled)
            failedStep = results.count
        }
        let end = ChainEnd(results: results, endedEarly: ended, step: failedStep, error: failure)
        lock.unlock()
        report(end)
    }
}

/// One step of a chain as an operation on the queue.
///
/// Generic (over its run's `Tag`), only so that its metadata is made at run time from its
/// superclass's, whereas a plain subclass of `Operation` writes the whole `Operation`
/// vtable into the binary with a relocation per entry (about 4 KB).
final class ChainStepOperation<Tag>: ServiceOperation, @unchecked Sendable {
    // unchecked: an Operation subclass (Foundation's own state is thread-safe); its
    // fields are set in init and never change.
    private let index: Int
    private let step: ChainLink
    private weak var run: ChainRun<Tag>?

    init(index: Int, step: ChainLink, run: ChainRun<Tag>) {
        self.index = index
        self.step = step
        self.run = run
        super.init(configuration: step.configuration)
        reportsOwnCancellation()  // the chain reports its cancellation
    }

    override func execute() {
        var previous: (any Sendable)?
        guard let run, run.runs(index, after: &previous) else {
            return finish()
        }
        let index = index
        let plan: ChainStep?
        do {
            plan = try step.plan(after: previous)
        } catch {
            run.step(index, .failure(chainBuildError(error, step: index)))
            return finish()
        }
        guard let plan else {
            run.step(index, nil)
            return finish()
        }
        service.perform(plan.request, transform: plan.decode) { [self] result in
            run.step(index, result)
            finish()
        }
    }
}

/// What an error a builder threw becomes: a ``NetworkError`` as is, any other error named
/// with its step (out of line and not a member: the operations' code is generic).
@inline(never)
func chainBuildError(_ error: any Error, step index: Int) -> NetworkError {
    error as? NetworkError ?? orchestrationError(.invalidRequest, stepSentence("step ", index, " could not build its request: ", error), underlying: error)
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
