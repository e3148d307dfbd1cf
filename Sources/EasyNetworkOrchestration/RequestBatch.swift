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

    /// The callbacks (``onResult``, ``onProgress``, ``completion``), in one private field:
    /// their accessors are emitted into callers and reach it through
    /// ``withCallbacks(_:)``, one function, not a getter, a setter and a `modify` each.
    @usableFromInline
    typealias Callbacks = (
        result: Optional<@Sendable (Int, Result<Output, NetworkError>) -> Void>,
        progress: Optional<@Sendable (Int, Int) -> Void>,
        completion: Optional<@Sendable ([Result<Output, NetworkError>]) -> Void>
    )

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
    @_alwaysEmitIntoClient  // in the caller: the batch reads the field
    public var onResult: (@Sendable (Int, Result<Output, NetworkError>) -> Void)? {
        get { withCallbacks { $0.result } }
        set {
            // The old closure is released after the lock is let go.
            let old = withCallbacks { callbacks in
                let old = callbacks.result
                callbacks.result = newValue
                return old
            }
            _ = old
        }
    }
    /// Called on ``callbackQueue`` with completed and total counts after each member.
    @_alwaysEmitIntoClient
    public var onProgress: (@Sendable (_ completed: Int, _ total: Int) -> Void)? {
        get { withCallbacks { $0.progress } }
        set {
            let old = withCallbacks { callbacks in
                let old = callbacks.progress
                callbacks.progress = newValue
                return old
            }
            _ = old
        }
    }
    /// Called once on ``callbackQueue`` with every result, in the order of ``operations``.
    @_alwaysEmitIntoClient
    public var completion: (@Sendable ([Result<Output, NetworkError>]) -> Void)? {
        get { withCallbacks { $0.completion } }
        set {
            let old = withCallbacks { callbacks in
                let old = callbacks.completion
                callbacks.completion = newValue
                return old
            }
            _ = old
        }
    }

    // No initial values where declared: in a public type each compiles a function.
    private let lock: Lock
    private var callbacks: Callbacks
    /// Members reported; `-1` before ``start(on:)``, `Int.min` once `completion` was called.
    private var completed: Int

    /// A batch of ready operations.
    public init(operations: [RequestOperation<Output>], policy: Policy = .settleAll, callbackQueue: DispatchQueue? = nil) {
        self.operations = operations
        self.policy = policy
        self.callbackQueue = callbackQueue ?? (operations.count == 0 ? .main : operations[0].configuration.deliveryQueue)
        progress = Progress.discreteProgress(totalUnitCount: Int64(operations.count))
        lock = Lock()
        callbacks = (nil, nil, nil)
        completed = -1
    }

    /// A batch of typed requests to one host.
    @_alwaysEmitIntoClient  // in the caller: it specializes for the request type anyway
    public convenience init<Request: APIRequest>(
        requests: [Request],
        configuration: HostConfiguration = .shared,
        policy: Policy = .settleAll,
        callbackQueue: DispatchQueue? = nil
    ) where Request.Response == Output {
        var operations: [RequestOperation<Output>] = []
        for request in requests {
            operations.append(RequestOperation(request: request, configuration: configuration, responseDecoder: request.responseDecoder))
        }
        self.init(operations: operations, policy: policy, callbackQueue: callbackQueue)
    }

    /// Runs `body` on the callbacks under the lock (for the accessors emitted into callers).
    @usableFromInline
    final func withCallbacks<T>(_ body: (inout Callbacks) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&callbacks)
    }

    /// Adds every member to `queue`. A second call does nothing.
    @_alwaysEmitIntoClient  // in the caller: one call
    public func start(on queue: NetworkQueue) {
        start(on: queue, then: nil)
    }

    /// ``start(on:)`` that also calls `then` after ``completion`` (set together with
    /// starting, under the lock: ``run(on:)``).
    @usableFromInline
    final func start(on queue: NetworkQueue, then: (@Sendable ([Result<Output, NetworkError>]) -> Void)?) {
        lock.lock()
        let first = completed == -1
        if let then {
            let previous = callbacks.completion
            callbacks.completion = { results in
                previous?(results)
                then(results)
            }
        }
        if first {
            completed = 0
        }
        lock.unlock()
        guard first else { return }
        let count = operations.count
        if count == 0 {
            return post(-1)
        }
        // One at a time through the queue's out-of-line `addOperation` (its inlined
        // `addOperations` and the array's cast to `[Operation]` are code of their own here).
        var index = 0
        while index < count {
            let member = index
            let operation = operations[index]
            operation.observeDelivery { self.post(member) }
            queue.addOperation(operation)
            index += 1
        }
    }

    /// Calls ``arrived(at:)`` on the callback queue (one closure for both callers).
    @inline(never)
    private func post(_ index: Int) {
        QueueHop.async(callbackQueue) { self.arrived(at: index) }
    }

    /// Runs the batch on `queue` and returns every result, in order. Cancelling the
    /// calling task cancels the batch.
    @_alwaysEmitIntoClient  // in the caller: an async function is many small functions
    public func run(on queue: NetworkQueue) async -> [Result<Output, NetworkError>] where Output: Sendable {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[Result<Output, NetworkError>], Never>) in
                start(on: queue) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Cancels every member; each reports a cancellation, then `completion` fires.
    @_alwaysEmitIntoClient  // one call: in the caller
    public func cancel() {
        cancelMembers(except: -1)
    }

    /// Cancels every member but `spared` (loops over the count: `indices` and `for in`
    /// over a generic array each call the standard library through witness tables).
    @usableFromInline @inline(never)
    final func cancelMembers(except spared: Int) {
        var index = 0
        while index < operations.count {
            if index != spared {
                operations[index].cancel()
            }
            index += 1
        }
    }

    /// The member `index` delivered its result (`-1`: an empty batch); on the callback queue.
    private func arrived(at index: Int) {
        let count = operations.count
        lock.lock()
        completed += 1
        let (completed, callbacks) = (self.completed, self.callbacks)
        if completed >= count {
            self.completed = Int.min  // `completion` is called once
        }
        lock.unlock()
        if index >= 0 {
            let result = result(at: index)
            progress.completedUnitCount = Int64(completed)
            callbacks.result?(index, result)
            callbacks.progress?(completed, count)
            if policy == .failFast, case .failure(let error) = result, !error.isCancelled {
                cancelMembers(except: index)
            }
        }
        if completed >= count {
            var results: [Result<Output, NetworkError>] = []
            var member = 0
            while member < count {
                results.append(result(at: member))
                member += 1
            }
            callbacks.completion?(results)
        }
    }

    /// Member `index`'s delivered result (one copy of the core's inlined `result` reader).
    @inline(never)
    private func result(at index: Int) -> Result<Output, NetworkError> {
        operations[index].result ?? .failure(orchestrationError(.cancelled))
    }
}
