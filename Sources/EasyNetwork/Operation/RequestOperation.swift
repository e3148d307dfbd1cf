import Foundation

/// A ready operation for any ``BaseAPIRequest``: give it the request and how to map
/// the response, get the result, and write no subclass.
///
/// ```swift
/// let op = RequestOperation(request: ItemsRequest(), decoding: [Item].self)
/// op.completion = { result in ... }            // or success / failure
/// NetworkQueue.shared.addOperation(op)
/// ```
///
/// Mapping runs off the callback queue; `success`, `failure` and `completion` are
/// called on the host's callback queue, in that order, exactly once per operation —
/// also for a cancellation, which arrives as a ``NetworkError`` with
/// ``NetworkError/isCancelled``, whether the operation was cancelled before it started
/// or while its request was in flight. The operation finishes after the callbacks of a
/// request that ran. One cancelled while it waited in a ``NetworkQueue`` calls back right
/// away (not when a slot frees) and finishes when the queue gets to it; the
/// cancellations of many such operations (`cancelAllOperations()`) reach the callback
/// queue in batches, each operation's callbacks still in order and once.
open class RequestOperation<Output>: ServiceOperation, @unchecked Sendable {
    private let request: BaseAPIRequest
    private let transform: @Sendable (NetworkResponse) throws -> Output
    /// What does not depend on `Output` (see ``OperationOutcome``).
    private typealias Outcome = OperationOutcome

    // The state that takes an `Output`, read and written only under the operation's lock
    // (`withLock`). Kept as the class's own fields (closures and references, whose layout
    // is the same for any `Output`), not in a struct nested in this generic class: freeing
    // or cancelling an operation then needs no lookup of generic type metadata.
    @exclusivity(unchecked) private var successClosure: (@Sendable (Output) -> Void)?
    @exclusivity(unchecked) private var completionClosure: (@Sendable (Result<Output, NetworkError>) -> Void)?
    @exclusivity(unchecked) private var cachedValueClosure: (@Sendable (Output) -> Void)?
    @exclusivity(unchecked) private var observers: [@Sendable (Result<Output, NetworkError>) -> Void] = []
    @exclusivity(unchecked) private var storedResult: StoredValue<Result<Output, NetworkError>>?

    // Read and written only under the operation's lock (`withLock`), through `outcome`.
    @exclusivity(unchecked) private var outcomeStorage = Outcome()

    /// The outcome, read or changed under the operation's lock (one lock per operation).
    private var outcome: OutcomeAccess { OutcomeAccess(operation: self) }

    /// `outcome.read { }` / `outcome.write { }` over the operation's lock.
    private struct OutcomeAccess {
        unowned(unsafe) let operation: RequestOperation<Output>

        /// Lends the outcome rather than copying it.
        func read<T>(_ body: (inout Outcome) -> T) -> T {
            operation.withLock { body(&operation.outcomeStorage) }
        }

        @discardableResult
        func write<T>(_ body: (inout Outcome) -> T) -> T {
            operation.withLock { body(&operation.outcomeStorage) }
        }
    }

    /// Called on the host's callback queue with the mapped value on success.
    ///
    /// The callback properties can be set and read from any thread (they are kept under a
    /// lock) and are `@Sendable`: the compiler rejects a closure that would race with the
    /// code that set it (a captured `var`, a non-Sendable object). They run on the host's
    /// ``HostConfiguration/callbackQueue`` (the main queue unless the host says otherwise);
    /// the ones set when the result is delivered are called.
    public var success: (@Sendable (Output) -> Void)? {
        get {
            lockState()
            defer { unlockState() }
            return successClosure
        }
        set {
            // The old closure is released after the lock is let go (its captures may run a
            // `deinit` that reaches another operation); no generic helper, which would wrap
            // the closure in a new one.
            lockState()
            let old = successClosure
            successClosure = newValue
            unlockState()
            _ = old
        }
    }
    /// Called on the host's callback queue with the error on failure or cancellation.
    public var failure: (@Sendable (NetworkError) -> Void)? {
        get { outcome.read { $0.failure } }
        set {
            lockState()
            let old = outcomeStorage.failure
            outcomeStorage.failure = newValue
            unlockState()
            _ = old
        }
    }
    /// Called on the host's callback queue with the result, after `success` or `failure`.
    public var completion: (@Sendable (Result<Output, NetworkError>) -> Void)? {
        get {
            lockState()
            defer { unlockState() }
            return completionClosure
        }
        set {
            lockState()
            let old = completionClosure
            completionClosure = newValue
            unlockState()
            _ = old
        }
    }
    /// Called once on the host's callback queue, before the network's result, with the
    /// value decoded from a stored response when the request's cache policy is
    /// `.cacheThenNetwork` and one is stored.
    public var onCachedValue: (@Sendable (Output) -> Void)? {
        get {
            lockState()
            defer { unlockState() }
            return cachedValueClosure
        }
        set {
            lockState()
            let old = cachedValueClosure
            cachedValueClosure = newValue
            unlockState()
            _ = old
        }
    }
    /// Bytes of the request body sent, of all (uploads; stays 0 of 0 for requests
    /// without a body). A discrete progress, made on first use: it never becomes a child
    /// of whatever progress the host app made current.
    public var uploadProgress: Progress {
        outcome.write { outcome in
            if let progress = outcome.uploadProgress {
                return progress
            }
            let progress = Progress.discreteProgress(totalUnitCount: 0)
            outcome.uploadProgress = progress
            return progress
        }
    }
    /// Called on the host's callback queue as the body goes out (at most every half
    /// percent), monotonic, and with 100 % before `success`.
    public var onUploadProgress: (@Sendable (Progress) -> Void)? {
        get { outcome.read { $0.onUploadProgress } }
        set {
            lockState()
            let old = outcomeStorage.onUploadProgress
            outcomeStorage.onUploadProgress = newValue
            unlockState()
            _ = old
        }
    }

    /// An operation that maps the response with `transform`, which runs off the
    /// callback queue and may throw (a thrown error becomes a decoding error).
    public init(
        request: BaseAPIRequest,
        configuration: HostConfiguration = .shared,
        transform: @escaping @Sendable (NetworkResponse) throws -> Output
    ) {
        self.request = request
        self.transform = transform
        super.init(configuration: configuration)
    }

    /// An operation whose response is decoded by `responseDecoder`
    /// (`.data`, `.string`, `.json`, `.void`, `.decodable()`, `.mapper(_:)`, `.map(_:)`).
    public convenience init(
        request: BaseAPIRequest,
        configuration: HostConfiguration = .shared,
        responseDecoder: ResponseDecoder<Output>
    ) {
        // The decoder's own closure, not a method reference wrapped in a new one.
        self.init(request: request, configuration: configuration, transform: responseDecoder.closure)
    }

    /// An operation that maps the JSON payload with a ``ResponseMapperProtocol`` type.
    public convenience init<Mapper: ResponseMapperProtocol>(
        request: BaseAPIRequest,
        configuration: HostConfiguration = .shared,
        mapper: Mapper.Type
    ) where Mapper.Item == Output {
        self.init(request: request, configuration: configuration, responseDecoder: .mapper(mapper))
    }

    /// An operation that decodes the payload as `type` with `decoder` (the host's
    /// `jsonDecoder` when `nil`). A decoding error names the type, the key path and a
    /// snippet of the body.
    public convenience init(
        request: BaseAPIRequest,
        configuration: HostConfiguration = .shared,
        decoding type: Output.Type,
        decoder: JSONDecoder? = nil
    ) where Output: Decodable {
        self.init(request: request, configuration: configuration, responseDecoder: .decodable(decoder))
    }

    /// An operation that maps the JSON payload (`Any?`, `nil` when empty) with a closure.
    public convenience init(
        request: BaseAPIRequest,
        configuration: HostConfiguration = .shared,
        map: @escaping @Sendable (Any?) throws -> Output
    ) {
        self.init(request: request, configuration: configuration, responseDecoder: .map(map))
    }

    /// The result, once the operation has delivered it.
    public var result: Result<Output, NetworkError>? {
        if let stored = withLock({ storedResult }) {
            return stored.value
        }
        // Cancelled while it waited in a queue: it never runs, nothing else stores a result.
        return wasCancelledWhileQueued ? .failure(.cancelled(url: nil)) : nil
    }

    /// The request's measurements (time queued, duration, bytes, attempts), set
    /// before the callbacks run; `nil` when the request never ran.
    public var metrics: RequestMetrics? {
        outcome.read { $0.metrics?.value }
    }

    /// Sends the request and reports its result; subclasses rarely override it.
    open override func execute() {
        let operation = UncheckedSendable(self)
        let queue = service.configuration.callbackQueue
        service.perform(request, transform: transform, uploadProgress: { sent, expected in
            operation.value.reportUpload(sent: sent, expected: expected, on: queue)
        }, cachedValue: { value in
            operation.value.onCachedValue?(value)
        }, completion: { (result: Result<Output, NetworkError>, metrics: RequestMetrics) in
            operation.value.outcome.write { $0.metrics = $0.metrics ?? StoredValue(metrics) }
            if case .success = result {
                operation.value.completeUpload()
            }
            operation.value.report(result)
            operation.value.finish()
        })
    }

    private func reportUpload(sent: Int64, expected: Int64, on queue: DispatchQueue) {
        let total = max(expected, sent)
        guard total > 0 else { return }
        let fraction = Double(sent) / Double(total)
        guard outcome.write({ $0.uploadGate.admit(fraction) }) else { return }
        let operation = UncheckedSendable(self)
        queue.async {
            let progress = operation.value.uploadProgress
            guard sent >= progress.completedUnitCount else { return }
            progress.totalUnitCount = total
            progress.completedUnitCount = sent
            operation.value.onUploadProgress?(progress)
        }
    }

    /// On the callback queue before `success`: a body that went out is at 100 %.
    private func completeUpload() {
        let progress = uploadProgress
        guard progress.totalUnitCount > 0, progress.completedUnitCount < progress.totalUnitCount else { return }
        progress.completedUnitCount = progress.totalUnitCount
        onUploadProgress?(progress)
    }

    override func willFinish() {
        // Cancelled before its request ran: store the cancellation now, so whoever
        // looks at `result` after the operation finished sees it, and call back later.
        guard !wasCancelledWhileQueued, isCancelled else { return }
        deliverCancellationBeforeStart()
    }

    override func didCancelWhileQueued() {
        // Waiting in a NetworkQueue: call back now rather than when a slot frees. The
        // operation never runs, so nothing can store another result (`result` reports the
        // cancellation).
        CoalescedDelivery.post(self, on: configuration.callbackQueue)
    }

    private func deliverCancellationBeforeStart() {
        guard store(.failure(.cancelled(url: nil))) else { return }
        // Batched with the other cancellations of a bulk cancel: one queue hop for many.
        CoalescedDelivery.post(self, on: configuration.callbackQueue)
    }

    /// The coalesced delivery of a cancellation before start, posted once by
    /// ``didCancelWhileQueued()`` (result not stored) or by
    /// ``deliverCancellationBeforeStart()`` (result stored); which one cannot change once
    /// either ran: the operation left the ready phase.
    override func receiveCoalescedDelivery() {
        if wasCancelledWhileQueued {
            callBackCancellation()
        } else {
            callBackStoredCancellation()
        }
    }

    /// The delivery of ``deliverCancellationBeforeStart()`` (kept apart so that the bulk
    /// path above builds no `Result` of `Output`).
    private func callBackStoredCancellation() {
        callBack(.failure(.cancelled(url: nil)))
    }

    /// Stores the result and calls the closures, if no result was stored before.
    private func report(_ result: Result<Output, NetworkError>) {
        if store(result) {
            callBack(result)
        }
    }

    /// Stores `result` if it is the first; returns whether it was.
    private func store(_ result: Result<Output, NetworkError>) -> Bool {
        withLock {
            guard storedResult == nil else { return false }
            storedResult = StoredValue(result)
            return true
        }
    }

    private func callBack(_ result: Result<Output, NetworkError>) {
        // Taken under the lock without a generic helper, which would rewrap the closures.
        lockState()
        let success = successClosure
        let failure = outcomeStorage.failure
        let completion = completionClosure
        unlockState()
        switch result {
        case .success(let value): success?(value)
        case .failure(let error): failure?(error)
        }
        completion?(result)
        if markDeliveredUnlessObserved() {
            notifyObservers(result)
        }
    }

    /// ``callBack(_:)`` for a cancellation of an operation that never ran, through
    /// closures that do not take an `Output` (the path of a bulk cancel).
    private func callBackCancellation() {
        // One step: this operation was queued (so its observers, if any, were added
        // before), and the result is known; marking it delivered before the closures run
        // makes no observer run early.
        lockState()
        let observed = outcomeStorage.observed
        if !observed {
            outcomeStorage.delivered = true
        }
        let failure = outcomeStorage.failure
        let completion = completionClosure
        unlockState()
        let error = NetworkError.cancelled(url: nil)
        failure?(error)
        completion?(.failure(error))
        if observed {
            notifyObservers(.failure(error))
        }
    }

    /// Marks the result delivered when no library observer ever asked for it (without
    /// touching the generic array); `true` when there are observers to call.
    private func markDeliveredUnlessObserved() -> Bool {
        outcome.write { outcome in
            if !outcome.observed {
                outcome.delivered = true
            }
            return outcome.observed
        }
    }

    /// Marks the result delivered and calls the library observers.
    private func notifyObservers(_ result: Result<Output, NetworkError>) {
        let observers = withLock {
            outcomeStorage.delivered = true
            defer { self.observers.removeAll() }
            return self.observers
        }
        observers.forEach { $0(result) }
    }

    /// Adds a library observer of the result, called once after the public closures,
    /// or at once when the result was already delivered.
    package func observeResult(_ observer: @escaping @Sendable (Result<Output, NetworkError>) -> Void) {
        let delivered: Result<Output, NetworkError>? = withLock {
            // Delivered without a stored result: the cancellation of one that never ran.
            if outcomeStorage.delivered { return storedResult?.value ?? .failure(.cancelled(url: nil)) }
            observers.append(observer)
            outcomeStorage.observed = true
            return nil
        }
        if let delivered {
            observer(delivered)
        }
    }
}
