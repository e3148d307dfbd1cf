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
final class RequestExchange<Output>: CancellableExchange, @unchecked Sendable {
    private struct State {
        var attempt = 0
        var replays = 0
        var task: TransportTask?
        /// A scheduled retry, cancelled with the exchange.
        var backoff: DispatchWorkItem?
        /// The ``DeadlineScheduler`` key of the attempt in flight.
        var deadline: Int?
        var timedOutAttempt: Int?
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
        /// The cache key and the stored response found when the request started.
        var cacheKey: String?
        var cached: CachedResponse?
    }

    /// The number interceptors see; 0 when there are none.
    private let requestID: Int
    private let service: EasyNetworkService
    private let host: HostConfiguration
    private let request: UncheckedSendable<any BaseAPIRequest>
    private let builder: URLRequestBuilder
    private let context: ResponseContext
    private let interceptors: [any RequestInterceptor]
    private let retryPolicy: RetryPolicy
    private let tokenWait: TokenWait?
    private let method: NetworkService.Method
    private let timeout: TimeInterval
    private let priority: Float?
    private let coalesces: Bool
    private let queuedAt: Date
    private let callbackQueue: DispatchQueue
    private let errorHandler: UncheckedSendable<(NetworkError) -> Void>?
    private let transform: @Sendable (NetworkResponse) throws -> Output
    private let completion: @Sendable (Result<Output, NetworkError>, RequestMetrics) -> Void
    private let uploadProgress: (@Sendable (Int64, Int64) -> Void)?
    private let cachedValue: (@Sendable (Output) -> Void)?
    private let cache: ResponseCache?
    private let cachePolicy: CachePolicy
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
        self.cachedValue = cachedValue
        self.service = service
        host = service.configuration
        self.request = UncheckedSendable(request)
        builder = URLRequestBuilder(configuration: host)
        // Fields are read from the shared snapshot; copying the whole struct would
        // retain every setting once more.
        let snapshot = builder.snapshot
        context = ResponseContext(settings: snapshot.settings)
        interceptors = snapshot.settings.interceptors + request.interceptors
        requestID = interceptors.isEmpty ? 0 : RequestContext.nextRequestID()
        retryPolicy = request.retryPolicy ?? snapshot.settings.retryPolicy
        tokenWait = request.requiresAuthentication ? snapshot.settings.authenticator.map { TokenWait(authenticator: $0, service: service) } : nil
        method = request.method
        timeout = request.timeout ?? snapshot.settings.timeout
        self.priority = priority
        coalesces = request.coalescesIdenticalRequests ?? snapshot.settings.coalescesRequests
        self.queuedAt = queuedAt
        callbackQueue = snapshot.settings.callbackQueue
        errorHandler = request.suppressesErrorHandler ? nil : snapshot.settings.errorHandler.map { handler in
            UncheckedSendable { (error: NetworkError) in handler(request, error) }
        }
        self.transform = transform
        self.completion = completion
        cachePolicy = request.cachePolicy ?? snapshot.settings.cachePolicy
        cache = cachePolicy == .networkOnly ? nil : snapshot.settings.responseCache
    }

    // MARK: Flow

    /// Builds the request and sends the first attempt.
    func start() {
        switch builder.build(request.value) {
        case .success(var urlRequest):
            if cache != nil, useCache(&urlRequest) {
                return
            }
            if let form = request.value.multipartBody, !method.sendsParametersInQuery {
                // Copying large files takes a while: never on the caller's thread,
                // which may be the main one.
                let prepared = UncheckedSendable(urlRequest)
                DispatchQueue.global(qos: .utility).async { [self] in
                    var urlRequest = prepared.value
                    switch writeMultipart(form, url: urlRequest.url) {
                    case .success(let file):
                        let kept: Bool = state.write { state in
                            guard !state.finished else { return false }
                            state.bodyFile = file
                            return true
                        }
                        guard kept else {
                            // Cancelled while the body was written.
                            try? FileManager.default.removeItem(at: file.url)
                            return
                        }
                        urlRequest.setValue(String(file.length), forHTTPHeaderField: "Content-Length")
                        sendAttempt(urlRequest)
                    case .failure(let error):
                        finish(.failure(error))
                    }
                }
                return
            }
            sendAttempt(urlRequest)
        case .failure(let error):
            finish(.failure(error))
        }
    }

    /// Applies the cache policy before sending: answers from the cache (returns `true`),
    /// delivers a cached copy first, or adds revalidation headers.
    private func useCache(_ urlRequest: inout URLRequest) -> Bool {
        guard let cache else { return false }
        let key = ResponseCache.key(for: urlRequest)
        let cached = cache.response(for: key)
        state.write {
            $0.cacheKey = key
            $0.cached = cached
        }
        guard let cached else { return false }
        switch cachePolicy {
        case .networkOnly:
            return false
        case .cacheElseNetwork(let maxAge):
            guard Date().timeIntervalSince(cached.storedAt) < maxAge, let response = cachedResponse(cached, request: urlRequest) else { return false }
            finish(Result { try transform(response) }.mapError { NetworkError.decoding($0, response: response) })
            return true
        case .cacheThenNetwork:
            if let cachedValue, let response = cachedResponse(cached, request: urlRequest), let value = try? transform(response) {
                let box = UncheckedSendable(value)
                callbackQueue.async { cachedValue(box.value) }
            }
            return false
        case .revalidate:
            if let etag = cached.etag {
                urlRequest.setValue(etag, forHTTPHeaderField: "If-None-Match")
            }
            if let lastModified = cached.lastModified {
                urlRequest.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
            }
            return false
        }
    }

    /// A stored response as a ``NetworkResponse``.
    private func cachedResponse(_ cached: CachedResponse, request urlRequest: URLRequest) -> NetworkResponse? {
        guard let url = urlRequest.url,
              let http = HTTPURLResponse(url: url, statusCode: cached.statusCode, httpVersion: "HTTP/1.1", headerFields: cached.headers)
        else { return nil }
        return NetworkResponse(request: urlRequest, httpResponse: http, data: cached.body, envelope: context.envelope, jsonDecoder: context.jsonDecoder)
    }

    /// Writes params (as text fields) and `form` to a temporary file.
    private func writeMultipart(_ form: MultipartFormData, url: URL?) -> Result<(url: URL, length: Int64), NetworkError> {
        var body = MultipartFormData(boundary: form.boundary)
        for (name, value) in QueryStringEncoder.flatten(request.value.params ?? [:]) {
            body.append(value, name: name)
        }
        body.append(contentsOf: form)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("EasyNetwork-upload-\(UUID().uuidString)")
        do {
            return .success((file, try body.write(to: file)))
        } catch {
            try? FileManager.default.removeItem(at: file)
            return .failure(NetworkError(kind: .encoding, message: "cannot write the multipart body: \(error.localizedDescription)", url: url, underlyingError: error))
        }
    }

    /// Gets a credential (when the host has an authenticator), then sends.
    private func sendAttempt(_ base: URLRequest) {
        guard let tokenWait else {
            send(base, credential: nil)
            return
        }
        tokenWait.credential { [self] result in
            switch result {
            case .success(let credential): send(base, credential: credential)
            case .failure(let error): finish(.failure(error))
            }
        }
    }

    private func send(_ base: URLRequest, credential: TokenAuthenticator.Credential?) {
        var urlRequest = base
        if let credential {
            tokenWait?.authorize(&urlRequest, with: credential)
        }
        let started: (attempt: Int, bodyFile: (url: URL, length: Int64)?)? = state.write { state in
            guard !state.cancelled, !state.finished else { return nil }
            state.attempt += 1
            if state.startedAt == nil { state.startedAt = Date() }
            return (state.attempt, state.bodyFile)
        }
        guard let (attempt, bodyFile) = started else {
            finish(.failure(.cancelled(url: base.url)))
            return
        }
        // Only interceptors read the context: most requests never make one.
        let requestContext = interceptors.isEmpty ? nil : RequestContext(request: request.value, host: host, attempt: attempt, requestID: requestID)
        if let requestContext {
            do {
                for interceptor in interceptors {
                    urlRequest = try interceptor.adapt(urlRequest, context: requestContext)
                }
            } catch {
                finish(.failure(Self.adaptationError(error, url: urlRequest.url)))
                return
            }
            interceptors.forEach { $0.willSend(urlRequest, context: requestContext) }
        }
        let sent = urlRequest
        let arrived: @Sendable (TransportOutcome) -> Void = { [self] outcome in
            received(outcome, attempt: attempt, base: base, credential: credential, context: requestContext)
        }
        let transport = host.transport
        let priority = priority
        let task: TransportTask?
        if coalesces, bodyFile == nil, RequestCoalescer.canCoalesce(sent) {
            task = transport.coalescer.dataTask(with: sent, start: { transport.dataTask(with: sent, priority: priority, completion: $0) }, completion: arrived)
        } else {
            task = transport.dataTask(with: sent, bodyFile: bodyFile?.url, priority: priority, uploadProgress: uploadProgress, completion: arrived)
        }
        guard let task else { return }  // the session is gone; the completion reported it
        let seen = requestContext != nil
        let proceed: Bool = state.write { state in
            if seen { state.lastRequest = sent }
            state.bytesSent += sent.httpBody?.count ?? Int(state.bodyFile?.length ?? 0)
            guard !state.cancelled, !state.finished else { return false }
            if state.completedAttempt < attempt {
                state.task = task
                // A strong reference (a weak one costs every request a side table):
                // every way the exchange ends removes the deadline.
                state.deadline = DeadlineScheduler.shared.schedule(at: .now() + timeout) { [self] in
                    deadlinePassed(attempt: attempt)
                }
            }
            return true
        }
        if !proceed {
            task.cancel()
        }
    }

    private func deadlinePassed(attempt: Int) {
        let task: TransportTask? = state.write { state in
            guard state.attempt == attempt, !state.finished, let task = state.task else { return nil }
            state.timedOutAttempt = attempt
            return task
        }
        task?.cancel()
    }

    private func received(
        _ outcome: TransportOutcome,
        attempt: Int,
        base: URLRequest,
        credential: TokenAuthenticator.Credential?,
        context requestContext: RequestContext?
    ) {
        var outcome = outcome
        let seen = requestContext != nil
        let (cancelled, timedOut): (Bool, Bool) = state.write { state in
            state.deadline.map(DeadlineScheduler.shared.cancel)
            state.deadline = nil
            state.task = nil
            state.completedAttempt = max(state.completedAttempt, attempt)
            if seen {
                state.lastResponse = outcome.response
                state.lastData = outcome.data
            }
            state.firstByteAt = outcome.firstByteAt
            state.bytesReceived += outcome.data.count
            return (state.cancelled, state.timedOutAttempt == attempt)
        }
        if timedOut && !cancelled {
            outcome.response = nil
            outcome.error = URLError(.timedOut)
        }
        if let cache, outcome.error == nil, let response = outcome.response,
           case let (cacheKey?, cached) = state.read({ ($0.cacheKey, $0.cached) }) {
            if response.statusCode == 304, let cached, let url = outcome.request.url,
               let stored = HTTPURLResponse(url: url, statusCode: cached.statusCode, httpVersion: "HTTP/1.1", headerFields: cached.headers) {
                // Not modified: answer with the stored body.
                outcome.response = stored
                outcome.data = cached.body
                cache.touch(cached)
            } else if context.acceptableStatusCodes.contains(response.statusCode) {
                cache.store(response, body: outcome.data, for: cacheKey)
            }
        }
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
            return Result { try transform(response) }.mapError { NetworkError.decoding($0, response: response) }
        }
        guard case .failure(let error) = result, !error.isCancelled else {
            finish(result)
            return
        }
        if error.isUnauthorized, let tokenWait, let credential, takeReplay() {
            tokenWait.unauthorized(sentWith: credential.generation) { [self] refreshed in
                switch refreshed {
                case .success(let credential): send(base, credential: credential)
                case .failure(let refreshError): finish(.failure(refreshError))
                }
            }
            return
        }
        if retryPolicy.shouldRetry(error, method: method, attempt: attempt) {
            scheduleRetry(base, after: retryPolicy.delay(after: attempt, error: error), error: error)
            return
        }
        finish(result)
    }

    /// A request is replayed after a token refresh at most once.
    private func takeReplay() -> Bool {
        state.write { state in
            guard state.replays == 0 else { return false }
            state.replays += 1
            return true
        }
    }

    private func scheduleRetry(_ base: URLRequest, after delay: TimeInterval, error: NetworkError) {
        let work = DispatchWorkItem { [weak self] in self?.sendAttempt(base) }
        let scheduled: Bool = state.write { state in
            guard !state.cancelled, !state.finished else { return false }
            state.backoff = work
            return true
        }
        if scheduled {
            ExchangeTimers.queue.asyncAfter(deadline: .now() + delay, execute: work)
        } else {
            finish(.failure(.cancelled(url: base.url)))
        }
    }

    /// Cancels the request wherever it is: in flight (the task's completion reports
    /// it), in a backoff or waiting for a token (reported at once).
    func cancel() {
        let (task, idle): (TransportTask?, Bool) = state.write { state in
            guard !state.finished, !state.cancelled else { return (nil, false) }
            state.cancelled = true
            state.backoff?.cancel()
            state.backoff = nil
            state.deadline.map(DeadlineScheduler.shared.cancel)
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

    private func finish(_ result: Result<Output, NetworkError>) {
        let ended = Date()
        let queuedAt = queuedAt
        let seen = !interceptors.isEmpty
        // Only what the ending needs leaves the lock: copying the whole state would
        // retain every field once more.
        let ending: (metrics: RequestMetrics, bodyFile: URL?, last: (URLRequest?, HTTPURLResponse?, Data?)?)? = state.write { state in
            guard !state.finished else { return nil }
            state.finished = true
            state.backoff?.cancel()
            state.deadline.map(DeadlineScheduler.shared.cancel)
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
        tokenWait?.end()
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
            let requestContext = RequestContext(request: request.value, host: host, attempt: metrics.attempts, requestID: requestID)
            interceptors.forEach { $0.didFinish(outcome, context: requestContext) }
        }
        // The callback first: it is what the caller waits for.
        service.deliver(result, metrics: metrics, on: callbackQueue, errorHandler: errorHandler, completion: completion)
        service.exchangeFinished(self)
    }

    private static func adaptationError(_ error: any Error, url: URL?) -> NetworkError {
        if let networkError = error as? NetworkError { return networkError }
        return NetworkError(kind: .invalidRequest, message: "an interceptor refused the request: \(error.localizedDescription)", url: url, underlyingError: error)
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
