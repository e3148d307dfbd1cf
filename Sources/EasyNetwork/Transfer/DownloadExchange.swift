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
    // unchecked: `request` is an immutable description the library only reads; every
    // `var` is read and written only under `lock`.
    private let lock = Lock()
    private var attempt = 0
    /// Who decided each retry (see ``RequestContext/retryCount(decidedBy:)``).
    private var retriesBy: [ObjectIdentifier] = []
    /// The transfer in flight; `nil` between transfers (a backoff, a refresh).
    private var transfer: DownloadTransfer?
    private var backoff: Int?
    private var lastResumedFrom: Int64 = 0
    private var cancelled = false, finished = false

    private let base: URLRequest
    private let request: any BaseAPIRequest
    private let host: HostConfiguration
    private let destination: URL
    private let options: DownloadOptions
    /// The host's features that adapt and decide retries for it (the token), through
    /// their plug-ins' interceptors; a download needs no other part of a plug-in.
    private let plugIns: [any RequestPlugIn]
    /// Those that adapt and decide retries: the token first, then the host's and the request's.
    private let chain: [any RequestInterceptor]
    private let requestID: Int
    private let retryPolicy: RetryPolicy
    private let progress: @Sendable (_ written: Int64, _ expected: Int64?) -> Void
    private let completion: @Sendable (Result<URL, NetworkError>) -> Void

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
        let plugIns = host.snapshot().plugIns(for: request, service: service).filter { $0.interceptor != nil }
        self.plugIns = plugIns
        let interceptors = host.interceptors + request.interceptors
        chain = plugIns.isEmpty ? interceptors : plugIns.compactMap(\.interceptor) + interceptors
        requestID = interceptors.isEmpty ? 0 : RequestContext.nextRequestID()
        retryPolicy = request.retryPolicy ?? host.retryPolicy
        self.progress = progress
        self.completion = completion
    }

    /// How many bytes of an earlier attempt the last transfer asked to resume after.
    var resumedFrom: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return transfer?.resumedFrom ?? lastResumedFrom
    }

    /// Adapts the request (the token first), then starts a transfer.
    func start() {
        lock.lock()
        guard !cancelled, !finished else {
            lock.unlock()
            return finish(.failure(.cancelled(url: base.url)))
        }
        attempt += 1
        let attempt = attempt
        lock.unlock()
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
        lock.lock()
        let proceed = !cancelled && !finished
        if proceed { self.transfer = transfer }
        lock.unlock()
        if proceed {
            transfer.start()
        } else {
            finish(.failure(.cancelled(url: base.url)))
        }
    }

    private func transferEnded(_ result: Result<URL, NetworkError>, attempt: Int) {
        lock.lock()
        lastResumedFrom = transfer?.resumedFrom ?? lastResumedFrom
        transfer = nil
        let cancelled = cancelled
        lock.unlock()
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
                lock.lock()
                let stale = cancelled || finished
                if !stale { backoff = key }
                lock.unlock()
                if stale {
                    DeadlineScheduler.shared.cancel(key)
                }
            }
        }
    }

    func retryCount(decidedBy type: ObjectIdentifier) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return retriesBy.reduce(0) { $1 == type ? $0 + 1 : $0 }
    }

    func recordRetry(decidedBy type: ObjectIdentifier) {
        lock.lock()
        retriesBy.append(type)
        lock.unlock()
    }

    /// Cancels the transfer in flight (its end reports it), or ends at once in a backoff,
    /// while adapting (waiting for a token) or while a retry is decided.
    func cancel() {
        lock.lock()
        guard !finished, !cancelled else { return lock.unlock() }
        cancelled = true
        backoff.map(DeadlineScheduler.shared.cancel)
        backoff = nil
        let transfer = transfer
        lock.unlock()
        if let transfer {
            transfer.cancel()
        } else {
            finish(.failure(.cancelled(url: base.url)))
        }
    }

    private func finish(_ result: Result<URL, NetworkError>) {
        lock.lock()
        guard !finished else { return lock.unlock() }
        finished = true
        backoff.map(DeadlineScheduler.shared.cancel)
        backoff = nil
        let attempts = attempt
        lock.unlock()
        plugIns.forEach { $0.end() }
        var result = result
        if case .failure(var error) = result {
            error.attempts = attempts
            result = .failure(error)
        }
        completion(result)
    }
}
