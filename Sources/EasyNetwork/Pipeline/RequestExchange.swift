import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request from its `URLRequest` to its single callback: the token, the
/// interceptors, each attempt with its own deadline, replays after a token refresh,
/// retries with backoff, and cancellation at any of those moments.
///
/// All mutable state sits behind one lock; every path ends in ``finish(_:)``, which
/// runs once.
final class RequestExchange<Output>: CancellableExchange, RetryLedger, @unchecked Sendable {
    private struct State {
        var attempt = 0
        /// Who decided each retry (see ``RequestContext/retryCount(decidedBy:)``).
        var retriesBy: [ObjectIdentifier] = []
        /// Whether the retry decision for the failed attempt is pending.
        var deciding = false
        var task: TransportTask?
        /// A scheduled retry, cancelled with the exchange.
        var backoff: Int?
        /// The clock of the attempt in flight (idle and total timeouts).
        var deadline: AttemptTimer?
        /// The attempt that timed out, and which limit it passed.
        var timedOut: (attempt: Int, error: URLError)?
        /// The last attempt whose transport completed (it may complete before `send`
        /// has stored its task).
        var completedAttempt = 0
        var cancelled = false
        var finished = false
        var startedAt: Date?
        var bytesSent = 0
        var bytesReceived = 0
        /// The last attempt's request and answer, kept only for interceptors.
        var lastRequest: URLRequest?
        var lastResponse: HTTPURLResponse?
        var lastData: Data?
        var firstByteAt: Date?
        /// The temporary file a multipart body was written to, removed at the end.
        var bodyFile: (url: URL, length: Int64)?
    }

    /// The number interceptors see; 0 when there are none.
    private let requestID: Int
    private let service: EasyNetworkService
    private let host: HostConfiguration
    private let request: UncheckedSendable<any BaseAPIRequest>
    private let builder: URLRequestBuilder
    private let context: ResponseContext
    /// The host's and the request's interceptors: they see every step.
    private let interceptors: [any RequestInterceptor]
    /// Those that adapt and decide retries: the token first, then `interceptors`.
    private let chain: [any RequestInterceptor]
    private let retryPolicy: RetryPolicy
    private let token: TokenInterceptor?
    private let method: NetworkService.Method
    private let limits: AttemptDeadline
    private let priority: Float?
    private let coalesces: Bool
    private let queuedAt: Date
    private let callbackQueue: DispatchQueue
    private let errorHandler: UncheckedSendable<(NetworkError) -> Void>?
    private let transform: @Sendable (NetworkResponse) throws -> Output
    private let completion: @Sendable (Result<Output, NetworkError>, RequestMetrics) -> Void
    private let uploadProgress: (@Sendable (Int64, Int64) -> Void)?
    private let cacheStage: CacheStage<Output>?
    private let state = Protected(State())

    init(
        service: EasyNetworkService,
        request: any BaseAPIRequest,
        priority: Float?,
        queuedAt: Date,
        transform: @escaping @Sendable (NetworkResponse) throws -> Output,
        uploadProgress: (@Sendable (Int64, Int64) -> Void)? = nil,
        cachedValue: (@Sendable (Output) -> Void)? = nil,
        completion: @escaping @Sendable (Result<Output, NetworkError>, RequestMetrics) -> Void
    ) {
        self.uploadProgress = uploadProgress
        self.service = service
        host = service.configuration
        self.request = UncheckedSendable(request)
        builder = URLRequestBuilder(configuration: host)
        // Fields are read from the shared snapshot; copying the whole struct would
        // retain every setting once more.
        let snapshot = builder.snapshot
        context = ResponseContext(settings: snapshot.settings)
        let interceptors = snapshot.settings.interceptors + request.interceptors
        self.interceptors = interceptors
        requestID = interceptors.isEmpty ? 0 : RequestContext.nextRequestID()
        retryPolicy = request.retryPolicy ?? snapshot.settings.retryPolicy
        let token = request.requiresAuthentication ? snapshot.settings.authenticator.map { TokenInterceptor(TokenWait(authenticator: $0, service: service)) } : nil
        self.token = token
        chain = token.map { [$0] + interceptors } ?? interceptors
        method = request.method
        limits = AttemptDeadline(idle: request.timeout ?? snapshot.settings.timeout, total: request.totalTimeout ?? snapshot.settings.totalTimeout)
        self.priority = priority
        coalesces = request.coalescesIdenticalRequests ?? snapshot.settings.coalescesRequests
        self.queuedAt = queuedAt
        callbackQueue = snapshot.settings.callbackQueue
        errorHandler = request.suppressesErrorHandler ? nil : snapshot.settings.errorHandler.map { handler in
            UncheckedSendable { (error: NetworkError) in handler(request, error) }
        }
        self.transform = transform
        self.completion = completion
        cacheStage = CacheStage(
            cache: snapshot.settings.responseCache,
            policy: request.cachePolicy ?? snapshot.settings.cachePolicy,
            context: context,
            callbackQueue: callbackQueue,
            transform: transform,
            cachedValue: cachedValue
        )
    }

    // MARK: Flow

    /// Builds the request and sends the first attempt.
    func start() {
        // Read once: a computed `multipartBody` makes a new boundary on every read, and
        // the Content-Type header and the body must name the same one.
        let form = URLRequestBuilder.multipartForm(of: request.value)
        switch builder.build(request.value, multipart: form) {
        case .success(let urlRequest):
            if let form {
                sendMultipart(MultipartBodyFile.body(form, fields: request.value.params), urlRequest)
                return
            }
            sendAttempt(urlRequest)
        case .failure(let error):
            finish(.failure(error))
        }
    }

    /// Writes the multipart body to a temporary file (off the caller's thread), then sends.
    private func sendMultipart(_ body: MultipartFormData, _ urlRequest: URLRequest) {
        let prepared = UncheckedSendable(urlRequest)
        MultipartBodyFile.write(body, for: urlRequest.url) { [self] result in
            switch result {
            case .success(let file):
                let kept: Bool = state.write { state in
                    guard !state.finished else { return false }
                    state.bodyFile = (file.url, file.length)
                    return true
                }
                guard kept else {
                    // Cancelled while the body was written.
                    file.remove()
                    return
                }
                var urlRequest = prepared.value
                urlRequest.setValue(String(file.length), forHTTPHeaderField: "Content-Length")
                sendAttempt(urlRequest)
            case .failure(let error):
                finish(.failure(error))
            }
        }
    }

    /// Sends one attempt of `base`: adapted by the chain (the token first), then
    /// asked of the cache, then handed to the transport.
    private func sendAttempt(_ base: URLRequest) {
        let attempt: Int? = state.write { state in
            guard !state.cancelled, !state.finished else { return nil }
            state.attempt += 1
            if state.startedAt == nil { state.startedAt = Date() }
            return state.attempt
        }
        guard let attempt else {
            finish(.failure(.cancelled(url: base.url)))
            return
        }
        // Only interceptors read the context: most requests never make one.
        guard !chain.isEmpty else {
            send(base, base: base, attempt: attempt, context: nil)
            return
        }
        let requestContext = makeContext(attempt: attempt)
        AdaptStage.run(base, interceptors: chain, context: requestContext) { [self] result in
            switch result {
            case .success(let adapted): send(adapted, base: base, attempt: attempt, context: requestContext)
            case .failure(let error): finish(.failure(error))
            }
        }
    }

    private func makeContext(attempt: Int) -> RequestContext {
        RequestContext(request: request.value, host: host, attempt: attempt, requestID: requestID, ledger: self)
    }

    private func send(_ adapted: URLRequest, base: URLRequest, attempt: Int, context requestContext: RequestContext?) {
        var urlRequest = adapted
        // Adapting may have taken a while: a request cancelled meanwhile has ended.
        guard let bodyFile: (url: URL, length: Int64)? = state.write({ state in
            state.cancelled || state.finished ? nil : .some(state.bodyFile)
        }) else {
            finish(.failure(.cancelled(url: base.url)))
            return
        }
        // The cache is asked with the request as sent, so its key holds the credentials.
        if attempt == 1, bodyFile == nil, let cacheStage, let value = cacheStage.lookUp(&urlRequest, token: token?.token) {
            finishFromCache(value)
            return
        }
        if let requestContext {
            interceptors.forEach { $0.willSend(urlRequest, context: requestContext) }
        }
        let sent = urlRequest
        let seen = !interceptors.isEmpty
        // Recorded before the transfer starts: a fast one can end before dataTask returns.
        state.write { state in
            if seen { state.lastRequest = sent }
            state.bytesSent += sent.httpBody?.count ?? Int(bodyFile?.length ?? 0)
        }
        let arrived: @Sendable (TransportOutcome) -> Void = { [self] outcome in
            // On the session's delegate queue: end the attempt, then leave that queue.
            let ending = transportEnded(outcome, attempt: attempt, seen: seen)
            ResponseStage.run { [self] in
                received(outcome, ending: ending, attempt: attempt, base: base, context: requestContext)
            }
        }
        let transport = host.transport
        let priority = priority
        let timer = AttemptTimer(limits) { [self] error in deadlinePassed(attempt: attempt, error: error) }
        let task: TransportTask?
        if coalesces, bodyFile == nil, RequestCoalescer.canCoalesce(sent) {
            task = transport.coalescer.dataTask(with: sent, activity: timer, start: {
                transport.dataTask(with: sent, priority: priority, activity: $0, completion: $1)
            }, completion: arrived)
        } else {
            task = transport.dataTask(with: sent, bodyFile: bodyFile?.url, priority: priority, uploadProgress: uploadProgress, activity: timer, completion: arrived)
        }
        guard let task else { return }  // the session is gone; the completion reported it
        let (proceed, armed): (Bool, Bool) = state.write { state in
            guard !state.cancelled, !state.finished else { return (false, false) }
            guard state.completedAttempt < attempt else { return (true, false) }
            state.task = task
            // Every way the exchange ends stops the timer (and drops it: it holds self).
            state.deadline = timer
            return (true, true)
        }
        if armed {
            timer.arm()  // outside the lock: it may expire at once; a stopped timer stays off
        } else if !proceed {
            task.cancel()
        }
    }

    private func deadlinePassed(attempt: Int, error: URLError) {
        let task: TransportTask? = state.write { state in
            guard state.attempt == attempt, !state.finished, let task = state.task else { return nil }
            state.timedOut = (attempt, error)
            return task
        }
        task?.cancel()
    }

    /// The attempt's transport ended: disarms its deadline (before any user code runs)
    /// and records what arrived. Returns whether it was cancelled and the timeout it passed.
    private func transportEnded(_ outcome: TransportOutcome, attempt: Int, seen: Bool) -> (cancelled: Bool, timedOut: URLError?) {
        state.write { state in
            state.deadline?.stop()
            state.deadline = nil
            state.task = nil
            state.completedAttempt = max(state.completedAttempt, attempt)
            if seen {
                state.lastResponse = outcome.response
                state.lastData = outcome.data
            }
            state.firstByteAt = outcome.firstByteAt
            state.bytesReceived += outcome.data.count
            return (state.cancelled, state.timedOut?.attempt == attempt ? state.timedOut?.error : nil)
        }
    }

    /// On the ``ResponseStage`` queue: everything after the transport.
    private func received(
        _ outcome: TransportOutcome,
        ending: (cancelled: Bool, timedOut: URLError?),
        attempt: Int,
        base: URLRequest,
        context requestContext: RequestContext?
    ) {
        var outcome = outcome
        let (cancelled, timedOut) = ending
        if let timedOut, !cancelled {
            outcome.response = nil
            outcome.error = timedOut
        }
        cacheStage?.useStoredBody(for: &outcome)
        if let requestContext {
            for interceptor in interceptors {
                interceptor.didReceive(outcome.response, data: outcome.data, error: outcome.error, context: requestContext)
            }
        }

        let result = context.classify(outcome, cancelled: cancelled).flatMap { response -> Result<Output, NetworkError> in
            do {
                if let requestContext {
                    for interceptor in interceptors {
                        try interceptor.validate(response, context: requestContext)
                    }
                }
            } catch {
                return .failure(Self.validationError(error, response: response))
            }
            let mapped = Result { try transform(response) }.mapError { NetworkError.decoding($0, response: response) }
            if case .success = mapped {
                cacheStage?.storeIfAllowed(response, token: token?.token)
            }
            return mapped
        }
        guard case .failure(let error) = result, !error.isCancelled else {
            finish(result)
            return
        }
        decideRetry(error, attempt: attempt, base: base, context: requestContext ?? makeContext(attempt: attempt))
    }

    /// Asks the ``RetryStage`` about a failed attempt and acts on its one decision.
    private func decideRetry(_ error: NetworkError, attempt: Int, base: URLRequest, context requestContext: RequestContext) {
        let asking: Bool = state.write { state in
            guard !state.cancelled, !state.finished else { return false }
            state.deciding = true
            return true
        }
        guard asking else {
            finish(.failure(.cancelled(url: base.url)))
            return
        }
        RetryStage.decide(error, interceptors: chain, policy: retryPolicy, context: requestContext) { [self] decision in
            let current: Bool = state.write { state in
                defer { state.deciding = false }
                return state.deciding && !state.cancelled && !state.finished
            }
            // Cancelled while deciding (it has ended as cancelled then), or a second answer.
            guard current else { return }
            switch decision {
            case .pass: finish(.failure(error))
            case .fail(let replaced): finish(.failure(replaced))
            case .retry(let delay): scheduleRetry(base, after: delay)
            }
        }
    }

    private func scheduleRetry(_ base: URLRequest, after delay: TimeInterval) {
        let key = RetryStage.backoff(after: delay) { [self] in sendAttempt(base) }
        guard let key else { return }
        let stale: Bool = state.write { state in
            guard !state.cancelled, !state.finished else { return true }
            state.backoff = key
            return false
        }
        if stale {
            DeadlineScheduler.shared.cancel(key)
        }
    }

    func retryCount(decidedBy type: ObjectIdentifier) -> Int {
        state.read { state in state.retriesBy.reduce(0) { $1 == type ? $0 + 1 : $0 } }
    }

    func recordRetry(decidedBy type: ObjectIdentifier) {
        state.write { $0.retriesBy.append(type) }
    }

    /// Cancels the request wherever it is: in flight (the task's completion reports
    /// it), in a backoff or waiting for a token (reported at once).
    func cancel() {
        let (task, idle): (TransportTask?, Bool) = state.write { state in
            guard !state.finished, !state.cancelled else { return (nil, false) }
            state.cancelled = true
            state.backoff.map(DeadlineScheduler.shared.cancel)
            state.backoff = nil
            state.deadline?.stop()
            state.deadline = nil
            return (state.task, state.task == nil)
        }
        if let task {
            task.cancel()
        } else if idle {
            finish(.failure(.cancelled(url: nil)))
        }
    }

    // MARK: End

    /// Ends the request with a stored answer: nothing was sent, so no attempt counts.
    private func finishFromCache(_ value: Output) {
        state.write { $0.attempt = 0 }
        finish(.success(value))
    }

    private func finish(_ result: Result<Output, NetworkError>) {
        let ended = Date()
        let queuedAt = queuedAt
        let seen = !interceptors.isEmpty
        // Only what the ending needs leaves the lock: copying the whole state would
        // retain every field once more.
        let ending: (metrics: RequestMetrics, bodyFile: URL?, last: (URLRequest?, HTTPURLResponse?, Data?)?)? = state.write { state in
            guard !state.finished else { return nil }
            state.finished = true
            state.backoff.map(DeadlineScheduler.shared.cancel)
            state.deadline?.stop()
            state.deadline = nil
            let startedAt = state.startedAt ?? ended
            let metrics = RequestMetrics(
                queuedAt: min(queuedAt, startedAt),
                startedAt: startedAt,
                firstByteAt: state.firstByteAt,
                endedAt: ended,
                bytesSent: state.bytesSent,
                bytesReceived: state.bytesReceived,
                attempts: state.attempt
            )
            return (metrics, state.bodyFile?.url, seen ? (state.lastRequest, state.lastResponse, state.lastData) : nil)
        }
        guard let ending else { return }
        token?.end()
        if let file = ending.bodyFile {
            try? FileManager.default.removeItem(at: file)
        }
        let metrics = ending.metrics
        var result = result
        if case .failure(var error) = result {
            error.attempts = metrics.attempts
            result = .failure(error)
        }
        if let (lastRequest, lastResponse, lastData) = ending.last {
            let outcome = RequestOutcome(
                urlRequest: lastRequest,
                response: lastResponse,
                data: lastData,
                error: { if case .failure(let error) = result { return error } else { return nil } }(),
                metrics: metrics
            )
            let requestContext = RequestContext(request: request.value, host: host, attempt: metrics.attempts, requestID: requestID, ledger: self)
            interceptors.forEach { $0.didFinish(outcome, context: requestContext) }
        }
        // The callback first: it is what the caller waits for.
        service.deliver(result, metrics: metrics, on: callbackQueue, errorHandler: errorHandler, completion: completion)
        service.exchangeFinished(self)
    }

    private static func validationError(_ error: any Error, response: NetworkResponse) -> NetworkError {
        if let networkError = error as? NetworkError { return networkError }
        return NetworkError(
            kind: .unacceptableStatus,
            message: error.localizedDescription,
            url: response.request.url,
            response: response.httpResponse,
            data: response.data,
            underlyingError: error
        )
    }
}

/// Where request deadlines and retry backoffs fire.
enum ExchangeTimers {
    static let queue = DispatchQueue(label: "EasyNetwork.timers", attributes: .concurrent)
}
