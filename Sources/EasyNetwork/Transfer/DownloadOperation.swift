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
/// The request gets the host's headers, token (the current one; a download is not
/// replayed after a refresh) and interceptors' `adapt`. Callbacks run on the host's
/// callback queue; progress is monotonic and reaches 1.0 on success; the completion
/// fires exactly once, also for a cancellation.
public final class DownloadOperation: ServiceOperation, @unchecked Sendable {
    private struct State {
        var transfer: DownloadTransfer?
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
        state.read { $0.transfer?.resumedFrom ?? 0 }
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
        if request.requiresAuthentication, let token = host.authenticator {
            token.authorize(&urlRequest, with: .init(token: token.token, generation: 0))
        }
        let interceptors = host.interceptors + request.interceptors
        let context = RequestContext(request: request, host: host, attempt: 1, requestID: interceptors.isEmpty ? 0 : RequestContext.nextRequestID())
        do {
            for interceptor in interceptors {
                urlRequest = try interceptor.adapt(urlRequest, context: context)
            }
        } catch {
            return fail(error as? NetworkError ?? NetworkError(kind: .invalidRequest, message: error.localizedDescription, url: urlRequest.url, underlyingError: error))
        }
        let transfer = DownloadTransfer(
            request: urlRequest,
            destination: destination,
            options: options,
            transport: host.transport,
            priority: nil,
            progress: { written, expected in operation.value.reportProgress(written: written, expected: expected, on: queue) },
            completion: { result in queue.async { operation.value.deliver(result) } }
        )
        let cancelled: Bool = state.write { state in
            state.transfer = transfer
            return isCancelled
        }
        if cancelled {
            fail(.cancelled(url: urlRequest.url))
        } else {
            transfer.start()
        }
    }

    /// Cancels the download; the bytes so far stay on disk for a later resume.
    public override func cancel() {
        super.cancel()
        state.read { $0.transfer }?.cancel()
    }

    override func willFinish() {
        if isCancelled, state.read({ $0.result == nil }) {
            let queue = service.configuration.callbackQueue
            let operation = UncheckedSendable(self)
            queue.async { operation.value.deliver(.failure(.cancelled(url: nil))) }
        }
    }

    private func reportProgress(written: Int64, expected: Int64?, on queue: DispatchQueue) {
        let total = max(expected ?? 0, written)
        let fraction = total > 0 ? Double(written) / Double(total) : 0
        guard state.write({ $0.gate.admit(fraction) }) else { return }
        let operation = UncheckedSendable(self)
        queue.async {
            let progress = operation.value.progress
            progress.totalUnitCount = total
            progress.completedUnitCount = written
            operation.value.onProgress?(progress)
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
        finish()
    }
}
