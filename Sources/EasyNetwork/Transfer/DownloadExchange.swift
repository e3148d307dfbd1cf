import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One download from its built `URLRequest` to its single result, over as many
/// transfers as it takes: the token (waiting for a running refresh), the interceptors'
/// `adapt`, one replay after a token refresh when the server answers 401, and retries
/// of transient failures under the retry policy. A retry of a resumable download
/// continues from the bytes on disk (`Range` + `If-Range`).
///
/// All mutable state sits behind one lock; every path ends in ``finish(_:)``, which
/// runs once.
final class DownloadExchange: Sendable {
    private struct State {
        var attempt = 0
        var replayed = false
        /// The transfer in flight; `nil` between transfers (a backoff, a refresh).
        var transfer: DownloadTransfer?
        var backoff: DispatchWorkItem?
        var resumedFrom: Int64 = 0
        var cancelled = false
        var finished = false
    }

    private let base: URLRequest
    private let request: UncheckedSendable<any BaseAPIRequest>
    private let host: HostConfiguration
    private let destination: URL
    private let options: DownloadOptions
    private let tokenWait: TokenWait?
    private let interceptors: [any RequestInterceptor]
    private let requestID: Int
    private let retryPolicy: RetryPolicy
    private let progress: @Sendable (_ written: Int64, _ expected: Int64?) -> Void
    private let completion: @Sendable (Result<URL, NetworkError>) -> Void
    private let state = Protected(State())

    init(
        base: URLRequest,
        request: any BaseAPIRequest,
        host: HostConfiguration,
        service: EasyNetworkService,
        destination: URL,
        options: DownloadOptions,
        progress: @escaping @Sendable (Int64, Int64?) -> Void,
        completion: @escaping @Sendable (Result<URL, NetworkError>) -> Void
    ) {
        self.base = base
        self.request = UncheckedSendable(request)
        self.host = host
        self.destination = destination
        self.options = options
        tokenWait = request.requiresAuthentication ? host.authenticator.map { TokenWait(authenticator: $0, service: service) } : nil
        interceptors = host.interceptors + request.interceptors
        requestID = interceptors.isEmpty ? 0 : RequestContext.nextRequestID()
        retryPolicy = request.retryPolicy ?? host.retryPolicy
        self.progress = progress
        self.completion = completion
    }

    /// How many bytes of an earlier attempt the last transfer asked to resume after.
    var resumedFrom: Int64 {
        state.read { $0.transfer?.resumedFrom ?? $0.resumedFrom }
    }

    /// Gets a credential (when the host has an authenticator), then starts a transfer.
    func start() {
        guard let tokenWait else {
            send(credential: nil)
            return
        }
        tokenWait.credential { [self] result in
            switch result {
            case .success(let credential): send(credential: credential)
            case .failure(let error): finish(.failure(error))
            }
        }
    }

    private func send(credential: TokenAuthenticator.Credential?) {
        var urlRequest = base
        if let credential {
            tokenWait?.authorize(&urlRequest, with: credential)
        }
        guard let attempt: Int = state.write({ state in
            guard !state.cancelled, !state.finished else { return nil }
            state.attempt += 1
            return state.attempt
        }) else {
            finish(.failure(.cancelled(url: base.url)))
            return
        }
        if !interceptors.isEmpty {
            let context = RequestContext(request: request.value, host: host, attempt: attempt, requestID: requestID)
            switch interceptors.adapt(urlRequest, context: context) {
            case .success(let adapted): urlRequest = adapted
            case .failure(let error): return finish(.failure(error))
            }
        }
        let transfer = DownloadTransfer(
            request: urlRequest,
            destination: destination,
            options: options,
            transport: host.transport,
            priority: nil,
            progress: progress,
            completion: { [self] result in transferEnded(result, credential: credential, attempt: attempt) }
        )
        let proceed: Bool = state.write { state in
            guard !state.cancelled, !state.finished else { return false }
            state.transfer = transfer
            return true
        }
        if proceed {
            transfer.start()
        } else {
            finish(.failure(.cancelled(url: base.url)))
        }
    }

    private func transferEnded(_ result: Result<URL, NetworkError>, credential: TokenAuthenticator.Credential?, attempt: Int) {
        let (cancelled, replay): (Bool, Bool) = state.write { state in
            state.resumedFrom = state.transfer?.resumedFrom ?? state.resumedFrom
            state.transfer = nil
            guard case .failure(let error) = result, error.isUnauthorized, !state.replayed, !state.cancelled else {
                return (state.cancelled, false)
            }
            state.replayed = true
            return (false, true)
        }
        guard case .failure(let error) = result, !error.isCancelled else {
            finish(result)
            return
        }
        if cancelled {
            finish(.failure(.cancelled(url: base.url)))
            return
        }
        if replay, let tokenWait, let credential {
            tokenWait.unauthorized(sentWith: credential.generation) { [self] refreshed in
                switch refreshed {
                case .success(let credential): send(credential: credential)
                case .failure(let refreshError): finish(.failure(refreshError))
                }
            }
            return
        }
        if retryPolicy.shouldRetry(error, method: request.value.method, attempt: attempt) {
            let work = DispatchWorkItem { [weak self] in self?.start() }
            let scheduled: Bool = state.write { state in
                guard !state.cancelled, !state.finished else { return false }
                state.backoff = work
                return true
            }
            if scheduled {
                ExchangeTimers.queue.asyncAfter(deadline: .now() + retryPolicy.delay(after: attempt, error: error), execute: work)
            } else {
                finish(.failure(.cancelled(url: base.url)))
            }
            return
        }
        finish(result)
    }

    /// Cancels the transfer in flight (its end reports it), or ends at once in a backoff
    /// or while waiting for a token.
    func cancel() {
        let (transfer, idle): (DownloadTransfer?, Bool) = state.write { state in
            guard !state.finished, !state.cancelled else { return (nil, false) }
            state.cancelled = true
            state.backoff?.cancel()
            state.backoff = nil
            return (state.transfer, state.transfer == nil)
        }
        if let transfer {
            transfer.cancel()
        } else if idle {
            finish(.failure(.cancelled(url: base.url)))
        }
    }

    private func finish(_ result: Result<URL, NetworkError>) {
        let first: Bool = state.write { state in
            guard !state.finished else { return false }
            state.finished = true
            state.backoff?.cancel()
            state.backoff = nil
            return true
        }
        guard first else { return }
        tokenWait?.end()
        var result = result
        if case .failure(var error) = result {
            error.attempts = state.read { $0.attempt }
            result = .failure(error)
        }
        completion(result)
    }
}
