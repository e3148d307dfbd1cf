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
/// host ``TokenAuthenticator`` refreshes the token (or joins the running refresh) and
/// replays the download once, as data requests do. Transient failures (a body cut
/// short, a reset, a retryable status) are retried under the request's or host's
/// ``RetryPolicy``, continuing from the bytes on disk. Callbacks run on the host's
/// callback queue; progress is monotonic and reaches 1.0 on success; the completion
/// fires exactly once, also for a cancellation. `try await queue.run(download)` returns
/// the file's URL or throws the ``NetworkError``.
public final class DownloadOperation: ServiceOperation, @unchecked Sendable {
    private struct State {
        var exchange: DownloadExchange?
        var observers: [@Sendable (Result<URL, NetworkError>) -> Void] = []
        var result: Result<URL, NetworkError>?
        var gate = ProgressGate()
        var onProgress: (@Sendable (Progress) -> Void)?
        var completion: (@Sendable (Result<URL, NetworkError>) -> Void)?
    }

    private let request: any BaseAPIRequest
    private let destination: URL
    private let options: DownloadOptions
    private let state = Protected(State())

    /// Bytes written of bytes expected (unknown totals count as 0 until the end). A
    /// discrete progress: it never becomes a child of the progress the host app made current.
    public let progress = Progress.discreteProgress(totalUnitCount: 0)
    /// Called on the host's callback queue when the progress moves forward (at most
    /// every half percent) and at the end. Both callback properties can be set from any
    /// thread (kept under a lock) and are `@Sendable`, so the compiler rejects a closure
    /// that would race with the code that set it.
    public var onProgress: (@Sendable (Progress) -> Void)? {
        get { state.read { $0.onProgress } }
        set { state.write { $0.onProgress = newValue } }
    }
    /// Called once on the host's callback queue with the file's URL or the error.
    public var completion: (@Sendable (Result<URL, NetworkError>) -> Void)? {
        get { state.read { $0.completion } }
        set { state.write { $0.completion = newValue } }
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
        state.read { $0.result }
    }

    /// How many bytes of an earlier attempt the last attempt asked to resume after
    /// (0 when it downloaded from the start).
    public var resumedFromOffset: Int64 {
        state.read { $0.exchange?.resumedFrom ?? 0 }
    }

    /// Starts the transfer; not for subclasses to override.
    public override func execute() {
        let host = service.configuration
        let queue = host.callbackQueue
        let operation = UncheckedSendable(self)
        let fail: (NetworkError) -> Void = { error in queue.async { operation.value.deliver(.failure(error)) } }
        var urlRequest: URLRequest
        switch URLRequestBuilder(configuration: host).build(request) {
        case .success(let built): urlRequest = built
        case .failure(let error): return fail(error)
        }
        urlRequest.timeoutInterval = max(urlRequest.timeoutInterval, 60)
        let exchange = DownloadExchange(
            base: urlRequest,
            request: request,
            host: host,
            service: service,
            destination: destination,
            options: options,
            progress: { written, expected in operation.value.reportProgress(written: written, expected: expected, on: queue) },
            completion: { result in queue.async { operation.value.deliver(result) } }
        )
        let cancelled: Bool = state.write { state in
            state.exchange = exchange
            return isCancelled
        }
        if cancelled {
            fail(.cancelled(url: urlRequest.url))
        } else {
            exchange.start()
        }
    }

    /// Cancels the download; the bytes so far stay on disk for a later resume.
    public override func cancel() {
        super.cancel()
        state.read { $0.exchange }?.cancel()
    }

    override func willFinish() {
        if isCancelled, state.read({ $0.result == nil }) {
            let queue = service.configuration.callbackQueue
            let operation = UncheckedSendable(self)
            queue.async { operation.value.deliver(.failure(.cancelled(url: nil))) }
        }
    }

    private func reportProgress(written: Int64, expected: Int64?, on queue: DispatchQueue) {
        // An empty body is complete once its length is known: one unit of one, so that
        // `fractionCompleted` reaches 1.0 for an empty file too.
        let empty = expected == 0 && written == 0
        let total = empty ? 1 : max(expected ?? 0, written)
        let completed = empty ? 1 : written
        let fraction = total > 0 ? Double(completed) / Double(total) : 0
        guard state.write({ $0.gate.admit(fraction) }) else { return }
        let operation = UncheckedSendable(self)
        queue.async {
            let progress = operation.value.progress
            progress.totalUnitCount = total
            progress.completedUnitCount = completed
            operation.value.onProgress?(progress)
        }
    }

    /// Calls `observer` once with the result, after ``completion``, on the callback
    /// queue (at once when it was delivered already).
    func observeResult(_ observer: @escaping @Sendable (Result<URL, NetworkError>) -> Void) {
        let delivered: Result<URL, NetworkError>? = state.write { state in
            if let result = state.result { return result }
            state.observers.append(observer)
            return nil
        }
        if let delivered {
            observer(delivered)
        }
    }

    private func deliver(_ result: Result<URL, NetworkError>) {
        let first: Bool = state.write { state in
            guard state.result == nil else { return false }
            state.result = result
            return true
        }
        guard first else { return }
        completion?(result)
        let observers: [@Sendable (Result<URL, NetworkError>) -> Void] = state.write { state in
            defer { state.observers.removeAll() }
            return state.observers
        }
        observers.forEach { $0(result) }
        finish()
    }
}
