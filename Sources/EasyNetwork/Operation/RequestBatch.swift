import Foundation

/// Many requests run together: results in the order given once all are done, each
/// result as it arrives, progress, and one cancel for all.
///
/// ```swift
/// let batch = RequestBatch(requests: ids.map { GetUser(id: $0) }, configuration: host, policy: .settleAll)
/// batch.onResult = { index, result in ... }          // as they arrive
/// batch.completion = { results in ... }              // [Result<User, NetworkError>], in order
/// batch.start(on: queue)
/// ```
///
/// Every callback runs on the batch's callback queue (the first member's host's by
/// default); `completion` fires exactly once, after every member reported, whatever
/// mix of failures and cancellations happened.
public final class RequestBatch<Output>: @unchecked Sendable {
    /// What one failure does to the rest.
    public enum Policy: Sendable {
        /// The first failure cancels every member still running; they report a
        /// cancellation.
        case failFast
        /// Every member runs to its own end.
        case settleAll
    }

    private struct State {
        var results: [Result<Output, NetworkError>?]
        var completed = 0
        var started = false
        var finished = false
        var onResult: (@Sendable (Int, Result<Output, NetworkError>) -> Void)?
        var onProgress: (@Sendable (_ completed: Int, _ total: Int) -> Void)?
        var completion: (@Sendable ([Result<Output, NetworkError>]) -> Void)?
    }

    /// The members, in order.
    public let operations: [RequestOperation<Output>]
    /// What a failure does to the rest.
    public let policy: Policy
    /// The queue the batch's callbacks run on.
    public let callbackQueue: DispatchQueue
    /// Completed members of all (`totalUnitCount` is the member count). A discrete
    /// progress: it never becomes a child of the progress the host app made current.
    public let progress: Progress
    /// Called on ``callbackQueue`` for each member as its result arrives, with its index.
    ///
    /// The callback properties can be set and read from any thread (they are kept under a
    /// lock) and are `@Sendable`: the compiler rejects a closure that would race with the
    /// code that set it. They run on ``callbackQueue``.
    public var onResult: (@Sendable (Int, Result<Output, NetworkError>) -> Void)? {
        get { state.read { $0.onResult } }
        set { state.write { $0.onResult = newValue } }
    }
    /// Called on ``callbackQueue`` with completed and total counts after each member.
    public var onProgress: (@Sendable (_ completed: Int, _ total: Int) -> Void)? {
        get { state.read { $0.onProgress } }
        set { state.write { $0.onProgress = newValue } }
    }
    /// Called once on ``callbackQueue`` with every result, in the order of ``operations``.
    public var completion: (@Sendable ([Result<Output, NetworkError>]) -> Void)? {
        get { state.read { $0.completion } }
        set { state.write { $0.completion = newValue } }
    }

    private let state: Protected<State>

    /// A batch of ready operations.
    public init(operations: [RequestOperation<Output>], policy: Policy = .settleAll, callbackQueue: DispatchQueue? = nil) {
        self.operations = operations
        self.policy = policy
        self.callbackQueue = callbackQueue ?? operations.first?.service.configuration.callbackQueue ?? .main
        progress = Progress.discreteProgress(totalUnitCount: Int64(operations.count))
        state = Protected(State(results: Array(repeating: nil, count: operations.count)))
    }

    /// A batch of typed requests to one host.
    public convenience init<Request: APIRequest>(
        requests: [Request],
        configuration: HostConfiguration = .shared,
        policy: Policy = .settleAll,
        callbackQueue: DispatchQueue? = nil
    ) where Request.Response == Output {
        self.init(
            operations: requests.map { RequestOperation(request: $0, configuration: configuration, responseDecoder: $0.responseDecoder) },
            policy: policy,
            callbackQueue: callbackQueue
        )
    }

    /// Adds every member to `queue`. A second call does nothing.
    public func start(on queue: NetworkQueue) {
        guard state.write({ state -> Bool in
            defer { state.started = true }
            return !state.started
        }) else { return }
        if operations.isEmpty {
            let batch = UncheckedSendable(self)
            callbackQueue.async { batch.value.complete() }
            return
        }
        for (index, operation) in operations.enumerated() {
            let batch = UncheckedSendable(self)
            let callbackQueue = callbackQueue
            operation.observeResult { result in
                let result = UncheckedSendable(result)
                callbackQueue.async { batch.value.arrived(result.value, at: index) }
            }
        }
        queue.addOperations(operations, waitUntilFinished: false)
    }

    /// Runs the batch on `queue` and returns every result, in order. Cancelling the
    /// calling task cancels the batch.
    public func run(on queue: NetworkQueue) async -> [Result<Output, NetworkError>] where Output: Sendable {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[Result<Output, NetworkError>], Never>) in
                state.write { state in
                    let previous = state.completion
                    state.completion = { results in
                        previous?(results)
                        continuation.resume(returning: results)
                    }
                }
                start(on: queue)
            }
        } onCancel: {
            cancel()
        }
    }

    /// Cancels every member; each reports a cancellation, then `completion` fires.
    public func cancel() {
        operations.forEach { $0.cancel() }
    }

    private func arrived(_ result: Result<Output, NetworkError>, at index: Int) {
        let arrival = state.write { state -> (completed: Int, onResult: (@Sendable (Int, Result<Output, NetworkError>) -> Void)?,
                                              onProgress: (@Sendable (Int, Int) -> Void)?)? in
            guard state.results[index] == nil else { return nil }
            state.results[index] = result
            state.completed += 1
            return (state.completed, state.onResult, state.onProgress)
        }
        guard let (completed, onResult, onProgress) = arrival else { return }
        progress.completedUnitCount = Int64(completed)
        onResult?(index, result)
        onProgress?(completed, operations.count)
        if policy == .failFast, case .failure(let error) = result, !error.isCancelled {
            for (other, operation) in operations.enumerated() where other != index {
                operation.cancel()
            }
        }
        if completed == operations.count {
            complete()
        }
    }

    private func complete() {
        let finished = state.write { state -> (results: [Result<Output, NetworkError>], completion: (@Sendable ([Result<Output, NetworkError>]) -> Void)?)? in
            guard !state.finished else { return nil }
            state.finished = true
            return (state.results.compactMap { $0 }, state.completion)
        }
        if let (results, completion) = finished {
            completion?(results)
        }
    }
}
