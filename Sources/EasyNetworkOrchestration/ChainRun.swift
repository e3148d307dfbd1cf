#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// One run of a `RequestChain`: one operation per step, each depending on the one
/// before, and a last operation that reports once all have finished.
final class ChainRun: @unchecked Sendable {
    // unchecked: the mutable fields below are read and written only under `lock`;
    // the `let`s and `operations` are set in init and never change.
    /// Receives every step's result, the error that stopped the chain, and whether a
    /// builder ended it early.
    typealias Report = @Sendable (_ results: [any Sendable], _ error: ChainError?, _ endedEarly: Bool) -> Void

    private let configuration: HostConfiguration
    /// One per step; filled in init, before the run is shared, and never changed.
    private var operations: [Operation] = []
    private let lock = Lock()
    private var results: [any Sendable] = []
    private var error: ChainError?
    private var ended = false
    private var cancelled = false
    private var reported = false
    private var report: Report?

    init(configuration: HostConfiguration, steps: [any ChainStep]) {
        self.configuration = configuration
        for (index, step) in steps.enumerated() {
            let operation = Self.operation(for: step, index: index, run: self, configuration: configuration)
            if let previous = operations.last {
                operation.addDependency(previous)
            }
            operations.append(operation)
        }
    }

    /// The operation of `step`, of the step's own type (see ``ChainStepOperation``).
    private static func operation<Step: ChainStep>(for step: Step, index: Int, run: ChainRun, configuration: HostConfiguration) -> Operation {
        ChainStepOperation(index: index, step: step, run: run, configuration: configuration)
    }

    /// Queues every step and a finisher that calls `report` once, on the host's
    /// callback queue, after all steps have finished (also after a
    /// `cancelAllOperations()`: see ``ChainFinisher``).
    func enqueue(on queue: NetworkQueue, report: @escaping Report) {
        lock.lock()
        self.report = report
        lock.unlock()
        let finisher = ChainFinisher(owner: self) { run in
            run.configuration.callbackQueue.async { run.deliver() }
        }
        operations.forEach { finisher.addDependency($0) }
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
        operations.forEach { $0.cancel() }
    }

    /// The previous step's result, or `nil` for the first step.
    func previousResult(before index: Int) -> (any Sendable)? {
        lock.lock()
        defer { lock.unlock() }
        return index > 0 && index <= results.count ? results[index - 1] : nil
    }

    /// Whether the chain already stopped (failed, cancelled or ended early).
    var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return error != nil || ended || cancelled
    }

    func stepSucceeded(_ index: Int, value: any Sendable) {
        lock.lock()
        results.append(value)
        lock.unlock()
    }

    func stepEnded(_ index: Int) {
        lock.lock()
        ended = true
        lock.unlock()
        stopAfter(index)
    }

    func stepFailed(_ index: Int, error: NetworkError) {
        lock.lock()
        let first = self.error == nil && !ended
        if first {
            self.error = ChainError(step: index, error: error)
        }
        lock.unlock()
        if first { stopAfter(index) }
    }

    /// What a builder's own error becomes (out of line: the operation's code is generic).
    static func buildError(_ error: any Error, step index: Int) -> NetworkError {
        NetworkError(kind: .invalidRequest, message: "step " + String(index + 1) + " could not build its request: " + error.localizedDescription, underlyingError: error)
    }

    private func stopAfter(_ index: Int) {
        operations.dropFirst(index + 1).forEach { $0.cancel() }
    }

    private func deliver() {
        lock.lock()
        guard !reported, let report else {
            lock.unlock()
            return
        }
        reported = true
        if error == nil, !ended, results.count < operations.count {
            // Cancelled before a step could report: name the first step that did not run.
            error = ChainError(step: results.count, error: NetworkError(kind: .cancelled))
        }
        let (results, error, ended) = (self.results, self.error, self.ended)
        lock.unlock()
        report(results, error, ended)
    }
}

/// One step of a chain as an operation on the queue.
///
/// Generic over its step's type: the metadata of a generic class is made at run time
/// from its superclass's, whereas a plain subclass of `Operation` writes the whole
/// `Operation` vtable into the binary with a relocation per entry (about 4 KB).
final class ChainStepOperation<Step: ChainStep>: ServiceOperation, @unchecked Sendable {
    // unchecked: an Operation subclass (Foundation's own state is thread-safe); its
    // fields are set in init and never change.
    private let index: Int
    private let step: Step
    private weak var run: ChainRun?

    init(index: Int, step: Step, run: ChainRun, configuration: HostConfiguration) {
        self.index = index
        self.step = step
        self.run = run
        super.init(configuration: configuration)
        reportsOwnCancellation()  // the chain reports its cancellation
    }

    override func execute() {
        guard let run, !run.isStopped else {
            finish()
            return
        }
        let previous = run.previousResult(before: index)
        if index > 0, previous == nil {
            // The step before never answered (cancelled with the whole queue): the chain
            // reports a cancellation there.
            return finish()
        }
        let plan: ChainPlan?
        do {
            plan = try step.plan(after: previous)
        } catch {
            run.stepFailed(index, error: error as? NetworkError ?? ChainRun.buildError(error, step: index))
            finish()
            return
        }
        guard let plan else {
            run.stepEnded(index)
            finish()
            return
        }
        let index = index
        service.perform(plan.request, transform: plan.decode) { [self] result in
            switch result {
            case .success(let value): run.stepSucceeded(index, value: value)
            case .failure(let error): run.stepFailed(index, error: error)
            }
            finish()
        }
    }
}
