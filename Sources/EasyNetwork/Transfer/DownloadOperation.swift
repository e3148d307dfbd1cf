import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads a request's body to a file, written as it arrives so memory stays flat
/// for any size, with progress, and resumable on every platform.
///
/// ```swift
/// let op = DownloadOperation(request: AssetRequest(id: 7), to: cachesFolder.appendingPathComponent("asset-7.zip"))
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
/// The request gets the host's headers, token and interceptors' `adapt`. A 401 with a
/// host `TokenAuthenticator` (from `EasyNetworkPlugins`) refreshes the token (or joins
/// the running refresh) and replays the download once, as data requests do. Transient failures (a body cut
/// short, a reset, a retryable status) are retried under the request's or host's
/// ``RetryPolicy``, continuing from the bytes on disk. Callbacks run on the host's
/// callback queue; progress is monotonic and reaches 1.0 on success; the completion
/// fires exactly once, also for a cancellation. `try await queue.run(download)` returns
/// the file's URL or throws the ``NetworkError``.
public final class DownloadOperation: ServiceOperation, @unchecked Sendable {  // unchecked: its vars are guarded by the operation's lock
    private let request: any BaseAPIRequest
    private let destination: URL
    private let options: DownloadOptions

    // Read and written only under the operation's lock (`lockState()`/`unlockState()`,
    // shared with ``NetworkOperation``); the lock, not the access checker, keeps them exclusive.
    @exclusivity(unchecked) private var exchange: DownloadExchange?
    @exclusivity(unchecked) private var storedResult: Result<URL, NetworkError>?
    @exclusivity(unchecked) private var observers: [@Sendable (Result<URL, NetworkError>) -> Void] = []
    @exclusivity(unchecked) private var gate = ProgressGate()
    @exclusivity(unchecked) private var progressClosure: (@Sendable (Progress) -> Void)?
    @exclusivity(unchecked) private var completionClosure: (@Sendable (Result<URL, NetworkError>) -> Void)?

    /// Bytes written of bytes expected (unknown totals count as 0 until the end). A
    /// discrete progress: it never becomes a child of the progress the host app made current.
    public let progress = Progress.discreteProgress(totalUnitCount: 0)
    /// Called on the host's callback queue when the progress moves forward (at most
    /// every half percent) and at the end. Both callback properties can be set from any
    /// thread (kept under the operation's lock) and are `@Sendable`, so the compiler
    /// rejects a closure that would race with the code that set it.
    public var onProgress: (@Sendable (Progress) -> Void)? {
        get {
            lockState()
            defer { unlockState() }
            return progressClosure
        }
        set {
            // The old closure is released after the lock is let go (its captures' `deinit`
            // may reach another operation).
            lockState()
            let old = progressClosure
            progressClosure = newValue
            unlockState()
            _ = old
        }
    }
    /// Called once on the host's callback queue with the file's URL or the error.
    public var completion: (@Sendable (Result<URL, NetworkError>) -> Void)? {
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

    /// A download of `request`'s body to `destination` on `configuration`'s host.
    public init(
        request: any BaseAPIRequest,
        to destination: URL,
        options: DownloadOptions = DownloadOptions(),
        configuration: HostConfiguration = .shared
    ) {
        self.request = request
        self.destination = destination
        self.options = options
        super.init(configuration: configuration)
    }

    /// The result, once delivered.
    public var result: Result<URL, NetworkError>? {
        lockState()
        defer { unlockState() }
        return storedResult
    }

    /// How many bytes of an earlier attempt the last attempt asked to resume after
    /// (0 when it downloaded from the start).
    public var resumedFromOffset: Int64 {
        lockState()
        let exchange = self.exchange
        unlockState()
        return exchange?.resumedFrom ?? 0
    }

    /// Starts the transfer; not for subclasses to override.
    public override func execute() {
        let service = self.service
        let host = service.configuration
        let queue = host.callbackQueue
        var urlRequest: URLRequest
        switch URLRequestBuilder(configuration: host).build(request) {
        case .success(let built): urlRequest = built
        case .failure(let error): return deliverLater(.failure(error), on: queue)
        }
        urlRequest.timeoutInterval = max(urlRequest.timeoutInterval, 60)
        let exchange = DownloadExchange(
            base: urlRequest,
            request: request,
            host: host,
            service: service,
            destination: destination,
            options: options,
            progress: { [self] written, expected in reportProgress(written: written, expected: expected, on: queue) },
            completion: { [self] result in deliverLater(result, on: queue) }
        )
        lockState()
        self.exchange = exchange
        unlockState()
        // Read after the exchange is stored (and outside our lock: Foundation's lock is
        // never taken under it): a `cancel()` that this read misses finds the exchange.
        if isCancelled {
            deliverLater(.failure(.cancelled(url: urlRequest.url)), on: queue)
        } else {
            exchange.start()
        }
    }

    /// Cancels the download; the bytes so far stay on disk for a later resume.
    public override func cancel() {
        super.cancel()
        lockState()
        let exchange = self.exchange
        unlockState()
        exchange?.cancel()
    }

    override func willFinish() {
        guard isCancelled else { return }
        lockState()
        let undelivered = storedResult == nil
        unlockState()
        if undelivered {
            deliverLater(.failure(.cancelled(url: nil)), on: configuration.callbackQueue)
        }
    }

    private func reportProgress(written: Int64, expected: Int64?, on queue: DispatchQueue) {
        // An empty body is complete once its length is known: one unit of one, so that
        // `fractionCompleted` reaches 1.0 for an empty file too.
        let empty = expected == 0 && written == 0
        let total = empty ? 1 : max(expected ?? 0, written)
        let completed = empty ? 1 : written
        let fraction = total > 0 ? Double(completed) / Double(total) : 0
        lockState()
        let admitted = gate.admit(fraction)
        unlockState()
        guard admitted else { return }
        queue.async { [self] in
            progress.totalUnitCount = total
            progress.completedUnitCount = completed
            onProgress?(progress)
        }
    }

    /// Calls `observer` once with the result, after ``completion``, on the callback
    /// queue (at once when it was delivered already).
    func observeResult(_ observer: @escaping @Sendable (Result<URL, NetworkError>) -> Void) {
        lockState()
        let delivered = storedResult
        if delivered == nil {
            observers.append(observer)
        }
        unlockState()
        if let delivered {
            observer(delivered)
        }
    }

    // Not inlined: one copy of the queue hop for its four callers (about 250 bytes each).
    @inline(never)
    private func deliverLater(_ result: Result<URL, NetworkError>, on queue: DispatchQueue) {
        queue.async { [self] in deliver(result) }
    }

    /// On the callback queue: stores the first result, calls ``completion`` and the
    /// observers with it, and finishes.
    private func deliver(_ result: Result<URL, NetworkError>) {
        lockState()
        let first = storedResult == nil
        if first {
            storedResult = result
        }
        let completion = first ? completionClosure : nil
        unlockState()
        guard first else { return }
        completion?(result)
        lockState()
        let observers = self.observers
        self.observers = []
        unlockState()
        for observer in observers {
            observer(result)
        }
        finish()
    }
}
