import Foundation

// The values of a ``RequestOperation``'s `settlement` (plain numbers, as ``ServiceOperation``'s phases).
private let settledNot: UInt8 = 0
private let settledDelivered: UInt8 = 1
private let settledCancelledBeforeRun: UInt8 = 2

/// `configuration`'s callback queue, read in one place (each inlined read copies and frees
/// the host's whole settings).
@inline(never)
private func callbackQueue(of configuration: HostConfiguration) -> DispatchQueue {
    configuration.callbackQueue
}

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
/// cancellations of many such operations (`cancelAllOperations()`) reach a serial
/// callback queue in the order they were made, each operation's callbacks in order and once.
open class RequestOperation<Output>: ServiceOperation, @unchecked Sendable {
    // unchecked: every `var` below is read and written only under the operation's lock (but
    // `awaitedOnly`, written before the operation is published).
    //
    // The lock is `lockState()`/`unlockState()`; the `let`s are set once in init.
    // Every field has the same layout for any `Output` (closures and references), so the
    // code that touches only the fields that do not name `Output` compiles as non-generic
    // code (constant field offsets, no generic metadata). No field has an initial value
    // where it is declared (in a public type each compiles a function): `init` sets them,
    // and an optional is spelled `Optional<T>` (`T?` has an implicit `= nil`).
    /// The types of ``handlers``' closures, in the order of the public properties.
    @usableFromInline
    typealias Handlers = (
        success: Optional<@Sendable (Output) -> Void>,
        failure: Optional<@Sendable (NetworkError) -> Void>,
        completion: Optional<@Sendable (Result<Output, NetworkError>) -> Void>,
        cachedValue: Optional<@Sendable (Output) -> Void>,
        uploadProgress: Optional<@Sendable (Progress) -> Void>
    )

    private let request: BaseAPIRequest
    private let transform: @Sendable (NetworkResponse) throws -> Output
    /// The public closures (``success``, ``failure``, ``completion``, ``onCachedValue``,
    /// ``onUploadProgress``), in one private field: the accessors emitted into callers
    /// reach it through ``withHandlers(_:)``, one function, not a getter, a setter and a
    /// `modify` per closure.
    @exclusivity(unchecked) private final var handlers: Handlers
    /// The delivered `(Result<Output, NetworkError>, RequestMetrics)`, as `Any` (the
    /// operation's layout does not depend on `Output`, and `RequestMetrics` holds `Date`s,
    /// whose layout is known only at run time); the reader, which knows `Output`, casts it
    /// back. An existential, not a box class of the core's: the same one allocation. `()`
    /// until then (not an optional: `settlement` says whether it was set).
    @exclusivity(unchecked) private final var delivery: Any
    @exclusivity(unchecked) private final var madeUploadProgress: Optional<Progress>
    /// The last upload fraction worth a callback (-1 before the first): only forward, in
    /// steps of at least half a percent, and always the final 100 % (see ``reportUpload(sent:expected:)``).
    @exclusivity(unchecked) private final var uploadReported: Double
    /// Whether the callbacks were called (observers added later run at once).
    @exclusivity(unchecked) private final var delivered: Bool
    /// How the result was settled, once: `settledNot`, `settledDelivered` (``delivery``
    /// holds it), `settledCancelledBeforeRun` (see ``cancelledBeforeStart(delivering:)``:
    /// ``result`` is then a cancellation, with nothing stored).
    @exclusivity(unchecked) private final var settlement: UInt8
    /// Made and awaited by the library (``NetworkQueue/send(_:configuration:)``), never
    /// shown to the caller: a success is delivered where it became known. Set before the
    /// operation is queued (queueing publishes it), read when it runs: no lock.
    @exclusivity(unchecked) private final var awaitedOnly: Bool
    /// Library observers of the delivery (``observeDelivery(_:)``), chained in one closure.
    @exclusivity(unchecked) private final var observers: Optional<@Sendable () -> Void>

    /// Called on the host's callback queue with the mapped value on success.
    ///
    /// The callback properties can be set and read from any thread: they are kept under
    /// the operation's lock. They are `@Sendable`, so the compiler rejects a closure that
    /// would race with the code that set it (a captured `var`, a non-Sendable object).
    /// They run on the host's ``HostConfiguration/callbackQueue`` (the main queue unless
    /// the host says otherwise); the ones set when the result is delivered are called.
    @_alwaysEmitIntoClient  // in the caller: the pipeline reads the field
    public final var success: (@Sendable (Output) -> Void)? {
        get {
            withHandlers { $0.success }
        }
        set {
            // The old closure is released after the lock is let go (its captures may run a
            // `deinit` that reaches another operation).
            let old = withHandlers { handlers in
                let old = handlers.success
                handlers.success = newValue
                return old
            }
            _ = old
        }
    }
    /// Called on the host's callback queue with the error on failure or cancellation.
    /// Set and read from any thread (kept under the operation's lock, like ``success``).
    @_alwaysEmitIntoClient  // in the caller: the pipeline reads the field
    public final var failure: (@Sendable (NetworkError) -> Void)? {
        get {
            withHandlers { $0.failure }
        }
        set {
            let old = withHandlers { handlers in
                let old = handlers.failure
                handlers.failure = newValue
                return old
            }
            _ = old
        }
    }
    /// Called on the host's callback queue with the result, after `success` or `failure`.
    /// Set and read from any thread (kept under the operation's lock, like ``success``).
    @_alwaysEmitIntoClient  // in the caller: the pipeline reads the field
    public final var completion: (@Sendable (Result<Output, NetworkError>) -> Void)? {
        get {
            withHandlers { $0.completion }
        }
        set {
            let old = withHandlers { handlers in
                let old = handlers.completion
                handlers.completion = newValue
                return old
            }
            _ = old
        }
    }
    /// Called once on the host's callback queue, before the network's result, with the
    /// value decoded from a stored response when the request's cache policy is
    /// `.cacheThenNetwork` and one is stored. Set and read from any thread (kept under the
    /// operation's lock, like ``success``).
    @_alwaysEmitIntoClient  // in the caller: the pipeline reads the field
    public final var onCachedValue: (@Sendable (Output) -> Void)? {
        get {
            withHandlers { $0.cachedValue }
        }
        set {
            let old = withHandlers { handlers in
                let old = handlers.cachedValue
                handlers.cachedValue = newValue
                return old
            }
            _ = old
        }
    }
    /// Bytes of the request body sent, of all (uploads; stays 0 of 0 for requests
    /// without a body). A discrete progress, made on first use: it never becomes a child
    /// of whatever progress the host app made current.
    @_alwaysEmitIntoClient  // in the caller: the pipeline reads the field
    public final var uploadProgress: Progress {
        madeProgress()
    }

    /// ``uploadProgress``, made on first use.
    @usableFromInline
    final func madeProgress() -> Progress {
        lockState()
        let progress = madeUploadProgress ?? Progress.discreteProgress(totalUnitCount: 0)
        madeUploadProgress = progress
        unlockState()
        return progress
    }
    /// Called on the host's callback queue as the body goes out (at most every half
    /// percent), monotonic, and with 100 % before `success`. Set and read from any thread
    /// (kept under the operation's lock, like ``success``).
    @_alwaysEmitIntoClient  // in the caller: the pipeline reads the field
    public final var onUploadProgress: (@Sendable (Progress) -> Void)? {
        get {
            withHandlers { $0.uploadProgress }
        }
        set {
            let old = withHandlers { handlers in
                let old = handlers.uploadProgress
                handlers.uploadProgress = newValue
                return old
            }
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
        handlers = (nil, nil, nil, nil, nil)
        delivery = ()
        madeUploadProgress = nil
        uploadReported = -1
        delivered = false
        settlement = settledNot
        awaitedOnly = false
        observers = nil
        super.init(configuration: configuration)
        // (It reports a cancellation before start itself: see `cancelledBeforeStart(delivering:)`.)
    }

    /// An operation whose response is decoded by `responseDecoder`
    /// (`.data`, `.string`, `.json`, `.void`, `.decodable()`, `.mapper(_:)`, `.map(_:)`).
    @_alwaysEmitIntoClient
    public convenience init(
        request: BaseAPIRequest,
        configuration: HostConfiguration = .shared,
        responseDecoder: ResponseDecoder<Output>
    ) {
        // The decoder's own closure, not a method reference wrapped in a new one.
        self.init(request: request, configuration: configuration, transform: responseDecoder.closure)
    }

    /// An operation that maps the JSON payload with a ``ResponseMapperProtocol`` type.
    @_alwaysEmitIntoClient
    public convenience init<Mapper: ResponseMapperProtocol>(
        request: BaseAPIRequest,
        configuration: HostConfiguration = .shared,
        mapper: Mapper.Type
    ) where Mapper.Item == Output {
        self.init(request: request, configuration: configuration, responseDecoder: .mapper(mapper))
    }

    /// An operation that decodes the payload as `type` with `decoder` (the host's
    /// `jsonDecoder` when `nil`). A decoding error names the type, the key path and the
    /// size of the body (the body itself is in its `data` and `bodySnippet`).
    @_alwaysEmitIntoClient
    public convenience init(
        request: BaseAPIRequest,
        configuration: HostConfiguration = .shared,
        decoding type: Output.Type,
        decoder: JSONDecoder? = nil
    ) where Output: Decodable {
        self.init(request: request, configuration: configuration, responseDecoder: .decodable(decoder))
    }

    /// An operation that maps the JSON payload (`Any?`, `nil` when empty) with a closure.
    @_alwaysEmitIntoClient
    public convenience init(
        request: BaseAPIRequest,
        configuration: HostConfiguration = .shared,
        map: @escaping @Sendable (Any?) throws -> Output
    ) {
        self.init(request: request, configuration: configuration, responseDecoder: .map(map))
    }

    /// The result, once the operation has delivered it.
    @_alwaysEmitIntoClient  // in the caller: the pipeline reads the field
    public final var result: Result<Output, NetworkError>? {
        let (stored, cancelledBeforeRun) = storedDelivery()
        // The box holds what `deliver` stored.
        if let delivered = stored as? (Result<Output, NetworkError>, RequestMetrics) {
            return delivered.0
        }
        // Cancelled before it ran (while it waited in a queue, or before it started): it
        // never runs, nothing else stores a result.
        return cancelledBeforeRun ? .failure(NetworkError(kind: .cancelled)) : nil
    }

    /// The request's measurements (time queued, duration, bytes, attempts), set
    /// before the callbacks run; `nil` when the request never ran.
    @_alwaysEmitIntoClient  // in the caller: the pipeline reads the field
    public final var metrics: RequestMetrics? {
        (storedDelivery().0 as? (Result<Output, NetworkError>, RequestMetrics))?.1
    }

    /// Runs `body` on the public closures, under the lock (see ``success``).
    @usableFromInline
    final func withHandlers<Value>(_ body: (inout Handlers) -> Value) -> Value {
        lockState()
        defer { unlockState() }
        return body(&handlers)
    }

    /// What ``result`` and ``metrics`` read, under the lock: the stored delivery, and
    /// whether the operation was cancelled before it ran.
    @usableFromInline
    final func storedDelivery() -> (Any, Bool) {
        lockState()
        defer { unlockState() }
        return (delivery, settlement == settledCancelledBeforeRun)
    }

    /// Sends the request and reports its result; subclasses rarely override it.
    open override func execute() {
        let inPlace = awaitedOnly
        // Each closure captures only `self`: none allocates a context.
        service.perform(request, transform: transform, uploadProgress: { [self] sent, expected in
            reportUpload(sent: sent, expected: expected)
        }, cachedValue: { [self] value in
            lockState()
            let cachedValue = handlers.cachedValue
            unlockState()
            cachedValue?(value)
        }, deliversInPlace: inPlace, completion: { [self] result, metrics in
            deliver(result, metrics: metrics)
        })
    }

    /// Marks an operation the library made to await it, before it is queued (see
    /// ``NetworkQueue/send(_:configuration:)``).
    @usableFromInline
    final func markAwaitedOnly() {
        awaitedOnly = true
    }

    /// On the callback queue (an awaited success: where it became known): stores the
    /// result and metrics, calls back, and finishes.
    private final func deliver(_ result: Result<Output, NetworkError>, metrics: RequestMetrics) {
        lockState()
        let first = settlement == settledNot
        if first {
            settlement = settledDelivered
            delivery = (result, metrics)
        }
        unlockState()
        if first {
            callBack(result)
        }
        finish()
    }

    /// Calls the closures set now, in order, then the library observers.
    private final func callBack(_ result: Result<Output, NetworkError>) {
        lockState()
        let (success, failure, completion) = (handlers.success, handlers.failure, handlers.completion)
        unlockState()
        switch result {
        case .success(let value):
            completeUpload()
            success?(value)
        case .failure(let error):
            failure?(error)
        }
        completion?(result)
        lockState()
        delivered = true
        let observers = observers.take()
        unlockState()
        observers?()
    }

    /// Before `success`: a body that went out is at 100 %; a progress nobody made (no
    /// upload was reported or asked for) stays unmade.
    @inline(__always)  // one call site (`callBack`): no function of its own
    private final func completeUpload() {
        lockState()
        let made = madeUploadProgress
        unlockState()
        if let made, made.totalUnitCount > 0 {
            showUpload(made.totalUnitCount, of: made.totalUnitCount)
        }
    }

    /// Called on the session's queue as the body goes out; hops to the callback queue
    /// only for progress worth a callback.
    private final func reportUpload(sent: Int64, expected: Int64) {
        let total = max(expected, sent)
        guard total > 0 else { return }
        let fraction = Double(sent) / Double(total)
        lockState()
        let admitted = fraction >= uploadReported + 0.005 || (fraction >= 1 && uploadReported < 1)
        if admitted {
            uploadReported = fraction
        }
        unlockState()
        guard admitted else { return }
        QueueHop.async(callbackQueue(of: configuration)) { [self] in
            showUpload(sent, of: total)
        }
    }

    /// On the callback queue: moves ``uploadProgress`` forward (never back) and calls
    /// ``onUploadProgress``.
    private final func showUpload(_ sent: Int64, of total: Int64) {
        let progress = madeProgress()
        guard sent >= progress.completedUnitCount, sent > progress.completedUnitCount || total != progress.totalUnitCount else { return }
        progress.totalUnitCount = total
        progress.completedUnitCount = sent
        lockState()
        let observer = handlers.uploadProgress
        unlockState()
        observer?(progress)
    }

    /// Delivers the cancellation once, through ``postCancellation(on:)``.
    override func cancelledBeforeStart(delivering: Bool) {
        if delivering {
            return callBack(.failure(.cancelled(url: nil)))
        }
        // Never runs: mark it, so whoever looks at `result` sees the cancellation, and
        // call back soon (waiting in a NetworkQueue: now rather than when a slot frees).
        lockState()
        let first = settlement == settledNot
        if first {
            settlement = settledCancelledBeforeRun
        }
        unlockState()
        if first {
            postCancellation(on: callbackQueue(of: configuration))
        }
    }

    /// Calls `observer` once after the public closures of the delivery (on the callback
    /// queue), or at once when the result was delivered already; ``result`` then holds it
    /// (for the library's awaits, batches and chains).
    @usableFromInline
    package final func observeDelivery(_ observer: @escaping @Sendable () -> Void) {
        lockState()
        let now = delivered
        if !now {
            if let previous = observers {
                observers = {
                    previous()
                    observer()
                }
            } else {
                observers = observer
            }
        }
        unlockState()
        if now {
            observer()
        }
    }
}
