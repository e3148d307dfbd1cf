#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
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
    // unchecked: every `var` below is read and written only under `lock`; a member's
    // result is stored under it by the thread that made it and taken out under it on
    // the callback queue, so values cross threads only through the lock.

    /// What one failure does to the rest.
    public enum Policy: Sendable {
        /// The first failure cancels every member still running; they report a
        /// cancellation.
        case failFast
        /// Every member runs to its own end.
        case settleAll
    }

    /// A member's result callback.
    private typealias ResultCallback = @Sendable (Int, Result<Output, NetworkError>) -> Void

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
        get { lock.lock(); defer { lock.unlock() }; return resultCallback }
        set { lock.lock(); resultCallback = newValue; lock.unlock() }
    }
    /// Called on ``callbackQueue`` with completed and total counts after each member.
    public var onProgress: (@Sendable (_ completed: Int, _ total: Int) -> Void)? {
        get { lock.lock(); defer { lock.unlock() }; return progressCallback }
        set { lock.lock(); progressCallback = newValue; lock.unlock() }
    }
    /// Called once on ``callbackQueue`` with every result, in the order of ``operations``.
    public var completion: (@Sendable ([Result<Output, NetworkError>]) -> Void)? {
        get { lock.lock(); defer { lock.unlock() }; return completionCallback }
        set { lock.lock(); completionCallback = newValue; lock.unlock() }
    }

    private let lock = Lock()
    private var results: [Result<Output, NetworkError>?]
    private var completed = 0
    private var started = false
    private var finished = false
    private var resultCallback: ResultCallback?
    private var progressCallback: (@Sendable (Int, Int) -> Void)?
    private var completionCallback: (@Sendable ([Result<Output, NetworkError>]) -> Void)?

    /// A batch of ready operations.
    public init(operations: [RequestOperation<Output>], policy: Policy = .settleAll, callbackQueue: DispatchQueue? = nil) {
        self.operations = operations
        self.policy = policy
        self.callbackQueue = callbackQueue ?? operations.first?.service.configuration.callbackQueue ?? .main
        progress = Progress.discreteProgress(totalUnitCount: Int64(operations.count))
        results = Array(repeating: nil, count: operations.count)
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
        lock.lock()
        let first = !started
        started = true
        lock.unlock()
        guard first else { return }
        if operations.isEmpty {
            callbackQueue.async { self.complete() }
            return
        }
        for (index, operation) in operations.enumerated() {
            operation.observeDelivery { [unowned operation] in
                self.store(operation.result ?? .failure(NetworkError(kind: .cancelled)), at: index)
            }
        }
        queue.addOperations(operations, waitUntilFinished: false)
    }

    /// Runs the batch on `queue` and returns every result, in order. Cancelling the
    /// calling task cancels the batch.
    public func run(on queue: NetworkQueue) async -> [Result<Output, NetworkError>] where Output: Sendable {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[Result<Output, NetworkError>], Never>) in
                lock.lock()
                let previous = completionCallback
                completionCallback = { results in
                    previous?(results)
                    continuation.resume(returning: results)
                }
                lock.unlock()
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

    /// Keeps a member's result (on the thread that made it) and reports it on the
    /// callback queue.
    private func store(_ result: Result<Output, NetworkError>, at index: Int) {
        lock.lock()
        let fresh = results[index] == nil
        if fresh {
            results[index] = result
        }
        lock.unlock()
        if fresh {
            callbackQueue.async { self.arrived(at: index) }
        }
    }

    private func arrived(at index: Int) {
        lock.lock()
        guard let result = results[index] else {
            lock.unlock()
            return
        }
        completed += 1
        let (completed, onResult, onProgress) = (self.completed, resultCallback, progressCallback)
        lock.unlock()
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
        lock.lock()
        guard !finished else {
            lock.unlock()
            return
        }
        finished = true
        let (results, completion) = (self.results.compactMap { $0 }, completionCallback)
        lock.unlock()
        completion?(results)
    }
}
