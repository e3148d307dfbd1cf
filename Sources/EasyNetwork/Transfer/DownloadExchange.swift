import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One download from its built `URLRequest` to its single result, over as many
/// transfers as it takes: the token and the interceptors' `adapt` (``AdaptStage``),
/// and the ``RetryStage``'s decision after a failed transfer (one replay after a token
/// refresh when the server answers 401, retries of transient failures under the
/// retry policy). A retry of a resumable download
/// continues from the bytes on disk (`Range` + `If-Range`).
///
/// All mutable state sits behind one lock; every path ends in ``finish(_:)``, which
/// runs once.
final class DownloadExchange: RetryLedger, @unchecked Sendable {
    // unchecked: `request` is an immutable description the library only reads; the
    // mutable state is in `state`, behind its lock.
    private struct State {
        var attempt = 0
        /// Who decided each retry (see ``RequestContext/retryCount(decidedBy:)``).
        var retriesBy: [ObjectIdentifier] = []
        /// The transfer in flight; `nil` between transfers (a backoff, a refresh).
        var transfer: DownloadTransfer?
        var backoff: Int?
        var resumedFrom: Int64 = 0
        var cancelled = false
        var finished = false
    }

    private let base: URLRequest
    private let request: any BaseAPIRequest
    private let host: HostConfiguration
    private let destination: URL
    private let options: DownloadOptions
    private let token: TokenPlugIn?
    /// Those that adapt and decide retries: the token first, then the host's and the request's.
    private let chain: [any RequestInterceptor]
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
        self.request = request
        self.host = host
        self.destination = destination
        self.options = options
        let token = request.requiresAuthentication ? host.authenticator.map { TokenPlugIn(TokenWait(authenticator: $0, service: service)) } : nil
        self.token = token
        let interceptors = host.interceptors + request.interceptors
        chain = token.map { [$0] + interceptors } ?? interceptors
        requestID = interceptors.isEmpty ? 0 : RequestContext.nextRequestID()
        retryPolicy = request.retryPolicy ?? host.retryPolicy
        self.progress = progress
        self.completion = completion
    }

    /// How many bytes of an earlier attempt the last transfer asked to resume after.
    var resumedFrom: Int64 {
        state.read { $0.transfer?.resumedFrom ?? $0.resumedFrom }
    }

    /// Adapts the request (the token first), then starts a transfer.
    func start() {
        guard let attempt: Int = state.write({ state in
            guard !state.cancelled, !state.finished else { return nil }
            state.attempt += 1
            return state.attempt
        }) else {
            finish(.failure(.cancelled(url: base.url)))
            return
        }
        guard !chain.isEmpty else {
            send(base, attempt: attempt)
            return
        }
        AdaptStage.run(base, interceptors: chain, context: context(attempt: attempt)) { [self] result in
            switch result {
            case .success(let adapted): send(adapted, attempt: attempt)
            case .failure(let error): finish(.failure(error))
            }
        }
    }

    private func context(attempt: Int) -> RequestContext {
        RequestContext(request: request, host: host, attempt: attempt, requestID: requestID, ledger: self)
    }

    private func send(_ urlRequest: URLRequest, attempt: Int) {
        let transfer = DownloadTransfer(
            request: urlRequest,
            destination: destination,
            options: options,
            transport: host.transport,
            priority: nil,
            progress: progress,
            completion: { [self] result in transferEnded(result, attempt: attempt) }
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

    private func transferEnded(_ result: Result<URL, NetworkError>, attempt: Int) {
        let cancelled: Bool = state.write { state in
            state.resumedFrom = state.transfer?.resumedFrom ?? state.resumedFrom
            state.transfer = nil
            return state.cancelled
        }
        guard case .failure(let error) = result, !error.isCancelled else {
            finish(result)
            return
        }
        if cancelled {
            finish(.failure(.cancelled(url: base.url)))
            return
        }
        RetryStage.decide(error, interceptors: chain, policy: retryPolicy, context: context(attempt: attempt)) { [self] decision in
            switch decision {
            case .pass: finish(result)
            case .fail(let replaced): finish(.failure(replaced))
            case .retry(let delay):
                guard let key = RetryStage.backoff(after: delay, { [self] in start() }) else { return }
                let stale: Bool = state.write { state in
                    guard !state.cancelled, !state.finished else { return true }
                    state.backoff = key
                    return false
                }
                if stale {
                    DeadlineScheduler.shared.cancel(key)
                }
            }
        }
    }

    func retryCount(decidedBy type: ObjectIdentifier) -> Int {
        state.read { state in state.retriesBy.reduce(0) { $1 == type ? $0 + 1 : $0 } }
    }

    func recordRetry(decidedBy type: ObjectIdentifier) {
        state.write { $0.retriesBy.append(type) }
    }

    /// Cancels the transfer in flight (its end reports it), or ends at once in a backoff,
    /// while adapting (waiting for a token) or while a retry is decided.
    func cancel() {
        let (transfer, idle): (DownloadTransfer?, Bool) = state.write { state in
            guard !state.finished, !state.cancelled else { return (nil, false) }
            state.cancelled = true
            state.backoff.map(DeadlineScheduler.shared.cancel)
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
            state.backoff.map(DeadlineScheduler.shared.cancel)
            state.backoff = nil
            return true
        }
        guard first else { return }
        token?.end()
        var result = result
        if case .failure(var error) = result {
            error.attempts = state.read { $0.attempt }
            result = .failure(error)
        }
        completion(result)
    }
}
