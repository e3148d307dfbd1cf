#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads a request's body to a file, written as it arrives so memory stays flat
/// for any size, with progress, and resumable on every platform.
///
/// ```swift
/// let op = DownloadOperation(request: AssetRequest(id: 7), configuration: host, to: cachesFolder.appendingPathComponent("asset-7.zip"))
/// op.onProgress = { progress in bar.value = progress.fractionCompleted }
/// op.completion = { result in ... }                 // Result<URL, NetworkError>
/// queue.addOperation(op)
/// ```
///
/// After a failure or a cancel the bytes already on disk are kept next to the
/// destination (`<name>.partial`). The next download to the same destination asks
/// the server for the rest (`Range`), guarded by `If-Range` with the ETag or
/// Last-Modified it saw, so a changed resource is never spliced onto old bytes: when the
/// server ignores the range or the resource changed, it starts over cleanly. This works
/// on Linux too, where URLSession has no resume data.
///
/// It works against any server: one that ignores or refuses (416) ranges, or serves an
/// empty file, gets a plain GET (see ``DownloadOptions/segmentSize``).
///
/// A download runs through the same pipeline as every request: it gets the host's
/// headers, token and interceptors (`adapt`, `willSend`, `didReceive`, `validate`,
/// `didFinish`; the response they see has an empty body, which is on disk), the same
/// timeouts, retries and ``metrics`` (bytes received are the bytes written). A 401 with a
/// host `TokenAuthenticator` (from `EasyNetworkPlugins`) refreshes the token (or joins
/// the running refresh) and replays the download once, as data requests do. Transient
/// failures (a body cut short, a reset, a retryable status, a timeout) are retried under
/// the request's or host's `RetryPolicy`, continuing from the bytes on disk. The
/// response cache and request coalescing never take part.
///
/// Timeouts: an attempt fails when no byte arrived for the request's `timeout` (else the
/// host's `HostConfiguration.timeout`), and when it took longer than the request's own
/// `totalTimeout`. The host's `HostConfiguration.totalTimeout` does not apply: it is a
/// budget for API calls, and a large file must not die by it.
///
/// Callbacks run on the host's callback queue; progress is monotonic and reaches 1.0 on
/// success; the completion fires exactly once, also for a cancellation.
/// `try await queue.run(download)` returns the file's URL or throws the `NetworkError`.
public final class DownloadOperation: ServiceOperation, @unchecked Sendable {  // unchecked: its vars are guarded by the operation's lock
    private let request: any BaseAPIRequest
    private let destination: URL
    private let options: DownloadOptions

    // Read and written only under the operation's lock (`lockState()`/`unlockState()`,
    // shared with `ServiceOperation`); the lock, not the access checker, keeps them exclusive.
    // No initial values here: in a public class each compiles a function (`T?` would be
    // given `nil` by one, so the optionals are spelled `Optional<T>` and set in `init`).
    /// Whether `execute()` ran; what the last attempt's transfer asked to resume after (it
    /// tells, see ``resumed(from:)``: the operation keeps no transfer, which holds the
    /// attempt's clock, which holds the exchange, which holds this operation); and the last
    /// progress fraction reported (-1: none yet). One field (one metadata entry, not three).
    @exclusivity(unchecked) private var marks: (executed: Bool, resumedOffset: Int64, reportedFraction: Double)
    @exclusivity(unchecked) private var storedResult: Optional<Result<URL, NetworkError>>
    @exclusivity(unchecked) private var storedMetrics: Optional<RequestMetrics>
    /// Who awaits the result besides ``completion`` (each `run`), chained in one closure.
    @exclusivity(unchecked) private var observers: Optional<@Sendable (Result<URL, NetworkError>) -> Void>
    @exclusivity(unchecked) private var progressClosure: Optional<@Sendable (Progress) -> Void>
    @exclusivity(unchecked) private var completionClosure: Optional<@Sendable (Result<URL, NetworkError>) -> Void>

    /// Bytes written of bytes expected (unknown totals count as 0 until the end). A
    /// discrete progress: it never becomes a child of the progress the host app made current.
    public let progress: Progress
    /// Called on the host's callback queue when the progress moves forward (at most
    /// every half percent) and at the end. Both callback properties can be set from any
    /// thread (kept under the operation's lock) and are `@Sendable`, so the compiler
    /// rejects a closure that would race with the code that set it.
    public var onProgress: (@Sendable (Progress) -> Void)? {
        // Emitted into its callers, as ``completion``: the module carries one function for
        // the six accessors instead of a getter, a setter and a two-part `modify` for each.
        @_alwaysEmitIntoClient get { exchangeCallbacks(0, progress: nil, completion: nil).progress }
        @_alwaysEmitIntoClient set { _ = exchangeCallbacks(1, progress: newValue, completion: nil) }
        @_alwaysEmitIntoClient _modify {
            var closure = exchangeCallbacks(0, progress: nil, completion: nil).progress
            yield &closure
            _ = exchangeCallbacks(1, progress: closure, completion: nil)
        }
    }
    /// Called once on the host's callback queue with the file's URL or the error.
    public var completion: (@Sendable (Result<URL, NetworkError>) -> Void)? {
        @_alwaysEmitIntoClient get { exchangeCallbacks(0, progress: nil, completion: nil).completion }
        @_alwaysEmitIntoClient set { _ = exchangeCallbacks(2, progress: nil, completion: newValue) }
        @_alwaysEmitIntoClient _modify {
            var closure = exchangeCallbacks(0, progress: nil, completion: nil).completion
            yield &closure
            _ = exchangeCallbacks(2, progress: nil, completion: closure)
        }
    }

    /// Both callbacks as they were, read under the lock; `replacing` 1 sets ``onProgress``
    /// to `progress`, 2 sets ``completion`` to `completion`, 0 sets neither. The old closures
    /// are released by the caller, after the lock is let go (their captures' `deinit` may
    /// reach another operation).
    @usableFromInline
    func exchangeCallbacks(
        _ replacing: Int,
        progress: (@Sendable (Progress) -> Void)?,
        completion: (@Sendable (Result<URL, NetworkError>) -> Void)?
    ) -> (progress: (@Sendable (Progress) -> Void)?, completion: (@Sendable (Result<URL, NetworkError>) -> Void)?) {
        lockState()
        let old = (progressClosure, completionClosure)
        if replacing == 1 {
            progressClosure = progress
        } else if replacing == 2 {
            completionClosure = completion
        }
        unlockState()
        return old
    }

    /// A download of `request`'s body to `destination` on `configuration`'s host.
    ///
    /// The host comes second, as for every operation
    /// (`RequestOperation(request:configuration:…)`): an SDK passes its own host;
    /// `.shared`, the default, is a convenience for apps.
    @_optimize(size)
    public init(
        request: any BaseAPIRequest,
        configuration: HostConfiguration = .shared,
        to destination: URL,
        options: DownloadOptions = DownloadOptions()
    ) {
        self.request = request
        self.destination = destination
        self.options = options
        marks = (false, 0, -1)
        storedResult = nil
        storedMetrics = nil
        observers = nil
        progressClosure = nil
        completionClosure = nil
        progress = Progress.discreteProgress(totalUnitCount: 0)
        super.init(configuration: configuration)
        reportsOwnCancellation()  // `cancel()` reports a cancellation before start
    }

    /// A download of `request`'s body to `destination` on `configuration`'s host, the host
    /// named last.
    @available(*, deprecated, renamed: "init(request:configuration:to:options:)",
               message: "pass the host second, as for every operation: DownloadOperation(request:configuration:to:options:)")
    @_disfavoredOverload
    @_alwaysEmitIntoClient  // deprecated: only the programs that still call it carry it
    public convenience init(
        request: any BaseAPIRequest,
        to destination: URL,
        options: DownloadOptions = DownloadOptions(),
        configuration: HostConfiguration = .shared
    ) {
        self.init(request: request, configuration: configuration, to: destination, options: options)
    }

    /// The result, once delivered.
    public var result: Result<URL, NetworkError>? {
        // Emitted into its callers, as ``metrics`` and ``resumedFromOffset``: the module
        // carries one reader of the three.
        @_alwaysEmitIntoClient get { outcome().result }
    }

    /// The download's measurements (attempts, bytes written, timings), set just before
    /// ``completion`` is called.
    public var metrics: RequestMetrics? {
        @_alwaysEmitIntoClient get { outcome().metrics }
    }

    /// How many bytes of an earlier attempt the last attempt asked to resume after
    /// (0 when it downloaded from the start).
    public var resumedFromOffset: Int64 {
        @_alwaysEmitIntoClient get { outcome().resumedFrom }
    }

    /// ``result``, ``metrics`` and ``resumedFromOffset``, read under the lock.
    @usableFromInline
    func outcome() -> (result: Result<URL, NetworkError>?, metrics: RequestMetrics?, resumedFrom: Int64) {
        lockState()
        let outcome = (storedResult, storedMetrics, marks.resumedOffset)
        unlockState()
        return outcome
    }

    /// Starts the transfer; not for subclasses to override.
    @_optimize(size)
    public override func execute() {
        lockState()
        marks.executed = true
        unlockState()
        // The operation is the exchange's plug-in (it carries each attempt) and its sink
        // (the exchange calls back on the callback queue); a cancel (before or after this
        // line) reaches it through the service.
        service.start(request, sink: self, uploadProgress: nil, transfer: self, built: nil)
    }

    /// Cancels the download; the bytes so far stay on disk for a later resume. One that
    /// has not started calls back with the cancellation at once (it will never run).
    @_optimize(size)
    public override func cancel() {
        super.cancel()
        // Once `execute()` ran, its exchange reports the cancellation (a result stored
        // first wins). Not `isExecuting`/`isFinished`: a queue may already have finished
        // the cancelled operation without executing it, which must still call back.
        lockState()
        let executed = marks.executed
        unlockState()
        guard !executed else { return }
        QueueHop.async(configuration.callbackQueue) { [self] in complete(DownloadTransfer.error(.cancelled, nil, url: nil, response: nil, underlying: nil), metrics: nil) }
    }

    /// Records the offset the running attempt's transfer asked to resume after.
    func resumed(from offset: Int64) {
        lockState()
        marks.resumedOffset = offset
        unlockState()
    }

    /// Reports `written` of `expected` bytes (from the transfer, on the session's queue).
    func reportProgress(written: Int64, expected: Int64?) {
        // An empty body is complete once its length is known: one unit of one, so that
        // `fractionCompleted` reaches 1.0 for an empty file too.
        let empty = expected == 0 && written == 0
        let total = empty ? 1 : max(expected ?? 0, written)
        let completed = empty ? 1 : written
        let fraction = total > 0 ? Double(completed) / Double(total) : 0
        // Only forward, in steps of at least half a percent, and always the final 100 %.
        lockState()
        let reported = marks.reportedFraction
        let admitted = fraction >= reported + 0.005 || (fraction >= 1 && reported < 1)
        if admitted {
            marks.reportedFraction = fraction
        }
        unlockState()
        guard admitted else { return }
        QueueHop.async(configuration.callbackQueue) { [self] in
            progress.totalUnitCount = total
            progress.completedUnitCount = completed
            lockState()
            let callback = progressClosure
            unlockState()
            callback?(progress)
        }
    }

    /// Calls `observer` once with the result, after ``completion``, on the callback
    /// queue (at once when it was delivered already).
    @usableFromInline  // called by `NetworkQueue.run(_:)`, emitted into its callers
    @_optimize(size)
    func observeResult(_ observer: @escaping @Sendable (Result<URL, NetworkError>) -> Void) {
        lockState()
        let delivered = storedResult
        if delivered == nil {
            let earlier = observers
            observers = { earlier?($0); observer($0) }
        }
        unlockState()
        if let delivered {
            observer(delivered)
        }
    }

    /// On the callback queue: stores the first result (`error`, else the destination),
    /// calls ``completion`` and the observers with it, and finishes.
    @inline(never)
    @_optimize(size)
    private func complete(_ error: NetworkError?, metrics: RequestMetrics?) {
        let result: Result<URL, NetworkError> = error.map { .failure($0) } ?? .success(destination)
        lockState()
        let first = storedResult == nil
        if first {
            storedResult = result
            storedMetrics = metrics
        }
        let completion = first ? completionClosure : nil
        unlockState()
        guard first else { return }
        completion?(result)
        lockState()
        let observers = self.observers
        self.observers = nil
        unlockState()
        observers?(result)
        finish()
    }
}

/// The download's part in its `RequestExchange`: it carries each attempt itself, and is
/// the exchange's typed end. The exchange builds, adapts (the token, the interceptors),
/// times, retries and delivers the download like any request; at the transport, the
/// operation runs one ``DownloadTransfer`` (which continues from the bytes on disk when it
/// can), tells the attempt's clock of every byte, and reports the last response, the
/// bytes written and the error once. Accepting the download (mapping it) moves the
/// complete bytes into place, so a download the exchange fails (an interceptor's
/// `validate`, its clock) leaves no file at the destination, only the resumable `.partial`.
extension DownloadOperation: RequestPlugIn, ExchangeSink {
    @_optimize(size)
    @usableFromInline package func send(
        _ request: URLRequest,
        activity: any TransferActivity,
        next: (URLRequest, any TransferActivity, @escaping @Sendable (TransportOutcome) -> Void) -> TransportTask?,
        arrived: @escaping @Sendable (TransportOutcome) -> Void
    ) -> TransportTask? {
        let transfer = DownloadTransfer(
            request: request, destination: destination, options: options, transport: configuration.transport,
            activity: activity, owner: self, completion: arrived
        )
        resumed(from: 0)  // until the transfer knows better (it may end before it asks)
        transfer.start()
        return TransportTask(cancel: { transfer.cancel() })
    }

    /// The body is on disk already: it only moves into place.
    @inline(never)  // one copy: its witness calls it
    @_optimize(size)
    @usableFromInline package func map(_ response: NetworkResponse, lock: Lock) -> NetworkError? {
        do {
            try DownloadTransfer.promote(destination)
            return nil
        } catch {
            return DownloadTransfer.fileError(error, url: response.request.url)
        }
    }

    // Witnesses of package protocols on a public class must be `@usableFromInline`.
    @usableFromInline package var mapsInline: Bool { false }
    @usableFromInline package var deliversInPlace: Bool { false }

    @usableFromInline package func deliverProvisional(_ response: NetworkResponse, on queue: DispatchQueue, lock: Lock) {}

    @usableFromInline package func deliver(_ error: NetworkError?, metrics: RequestMetrics, lock: Lock) {
        complete(error, metrics: metrics)
    }
}

extension DownloadOperation: FailureReporting {
    @usableFromInline  // it witnesses FailureReporting, which `NetworkQueue.check(_:)` (emitted into callers) names
    package var failure: NetworkError? {
        @inline(never) get {  // one copy: its witness calls it
            lockState()
            defer { unlockState() }
            guard case .failure(let error)? = storedResult else { return nil }
            return error
        }
    }
}
