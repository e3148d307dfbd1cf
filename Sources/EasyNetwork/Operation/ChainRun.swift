import Foundation

/// One run of a ``RequestChain``: one operation per step, each depending on the one
/// before, and a last operation that reports once all have finished.
final class ChainRun: @unchecked Sendable {
    private struct State {
        var results: [Any] = []
        var error: ChainError?
        var ended = false
        var cancelled = false
        var reported = false
    }

    private let configuration: HostConfiguration
    private let state = Protected(State())
    private let report: (_ results: [Any], _ error: ChainError?, _ endedEarly: Bool) -> Void
    private var operations: [ChainStepOperation] = []

    init(configuration: HostConfiguration, steps: [ChainStep], report: @escaping ([Any], ChainError?, Bool) -> Void) {
        self.configuration = configuration
        self.report = report
        operations = steps.enumerated().map { index, step in
            ChainStepOperation(index: index, step: step, configuration: configuration)
        }
        for (index, operation) in operations.enumerated() {
            operation.run = self
            if index > 0 {
                operation.addDependency(operations[index - 1])
            }
        }
    }

    func enqueue(on queue: NetworkQueue) {
        let finisher = BlockOperation { [self] in
            let queue = configuration.callbackQueue
            let run = UncheckedSendable(self)
            queue.async { run.value.deliver() }
        }
        operations.forEach { finisher.addDependency($0) }
        queue.addOperations(operations, waitUntilFinished: false)
        queue.operationQueue.addOperation(finisher)
    }

    /// Cancels every step. Sticky: called before ``enqueue(on:)``, the steps are queued
    /// already cancelled and none runs; called later, no step starts after it.
    func cancel() {
        state.write { $0.cancelled = true }
        operations.forEach { $0.cancel() }
    }

    /// The previous step's result, or `nil` for the first step.
    func previousResult(before index: Int) -> Any? {
        state.read { index > 0 && index <= $0.results.count ? $0.results[index - 1] : nil }
    }

    /// Whether the chain already stopped (failed, cancelled or ended early).
    var isStopped: Bool {
        state.read { $0.error != nil || $0.ended || $0.cancelled }
    }

    func stepSucceeded(_ index: Int, value: Any?) {
        state.write { $0.results.append(value as Any) }
    }

    func stepEnded(_ index: Int) {
        state.write { $0.ended = true }
        stopAfter(index)
    }

    func stepFailed(_ index: Int, error: NetworkError) {
        let first: Bool = state.write { state in
            guard state.error == nil, !state.ended else { return false }
            state.error = ChainError(step: index, error: error)
            return true
        }
        if first { stopAfter(index) }
    }

    private func stopAfter(_ index: Int) {
        operations.dropFirst(index + 1).forEach { $0.cancel() }
    }

    private func deliver() {
        let outcome: ([Any], ChainError?, Bool)? = state.write { state in
            guard !state.reported else { return nil }
            state.reported = true
            if state.error == nil, !state.ended, state.results.count < operations.count {
                // Cancelled before a step could report: name the first step that did not run.
                state.error = ChainError(step: state.results.count, error: .cancelled(url: nil))
            }
            return (state.results, state.error, state.ended)
        }
        if let outcome {
            report(outcome.0, outcome.1, outcome.2)
        }
    }
}

/// One step of a chain as an operation on the queue.
final class ChainStepOperation: ServiceOperation, @unchecked Sendable {
    private let index: Int
    private let step: ChainStep
    weak var run: ChainRun?

    init(index: Int, step: ChainStep, configuration: HostConfiguration) {
        self.index = index
        self.step = step
        super.init(configuration: configuration)
    }

    override func execute() {
        guard let run, !run.isStopped else {
            finish()
            return
        }
        let plan: ChainStep.Plan?
        do {
            plan = try step.build(run.previousResult(before: index))
        } catch {
            let networkError = error as? NetworkError
                ?? NetworkError(kind: .invalidRequest, message: "step \(index + 1) could not build its request: \(error.localizedDescription)", underlyingError: error)
            run.stepFailed(index, error: networkError)
            finish()
            return
        }
        guard let plan else {
            run.stepEnded(index)
            finish()
            return
        }
        let operation = UncheckedSendable(self)
        service.perform(plan.request, transform: { response in UncheckedSendable(try plan.decode(response)) }) { result in
            switch result {
            case .success(let value): run.stepSucceeded(operation.value.index, value: value.value)
            case .failure(let error): run.stepFailed(operation.value.index, error: error)
            }
            operation.value.finish()
        }
    }
}
