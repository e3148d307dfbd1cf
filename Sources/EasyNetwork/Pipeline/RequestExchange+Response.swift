import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The response side of a ``RequestExchange``: what an attempt produced is settled
/// (validated and mapped), a failure is offered for a retry, and the request ends once.
extension RequestExchange {
    /// On the ``ResponseStage`` queue: validate, then map or decide a retry. Interceptors
    /// see the attempt through a context made here (the transport carries none).
    func received(_ outcome: consuming TransportOutcome, cancelled: Bool, attempt: Int) {
        let context = chain.isEmpty ? nil : context(attempt: attempt)
        guard let failure = settle(&outcome, cancelled: cancelled, context: context) else { return finish(nil) }
        // Cancellations are never offered for a retry.
        if failure.isCancelled { return finish(failure) }
        lock.lock()
        let asking = !self.cancelled && !finished
        deciding = asking
        lock.unlock()
        // Cancelled after its answer arrived: it ends as cancelled, nothing is asked.
        guard asking else { return finish(.cancelled(url: outcome.request.url)) }
        // Nobody to ask (no interceptor, no retry engine), or a failure another attempt
        // could only repeat (a NonRetryableError underneath: a server refused by its pins).
        guard let context, !(failure.underlyingError is any NonRetryableError) else {
            return decided(.pass, failure)
        }
        ask(0, failure, context: context)
    }

    /// What one attempt produced, settled: plug-ins (a `304` may become the stored response)
    /// and interceptors hear it; a cancellation, transport errors, the host's acceptable
    /// status codes and the interceptors' `validate` judge it; then the one place user
    /// mapping runs (the caller's transform, mapper or `Decodable`, the envelope judged by
    /// it), and a response that mapped is offered to the plug-ins (the cache). Returns the
    /// failure, or `nil` when the sink keeps a value. A streamed transfer (a download) judged
    /// its own status and errors: its ``NetworkError`` passes unchanged, and its response
    /// is never read with the envelope.
    private func settle(_ outcome: inout TransportOutcome, cancelled: Bool, context: RequestContext?) -> NetworkError? {
        for plugIn in plugIns {
            plugIn.received(&outcome)
        }
        if let context {
            for interceptor in chain {
                interceptor.didReceive(outcome.response, data: outcome.data, error: outcome.error, context: context)
            }
        }
        let url = outcome.request.url
        // No answer: cancelled, a library error as is, else a transport error (a body cut
        // short named as such; no error and no response is a bad server response).
        guard outcome.error == nil, let httpResponse = outcome.response else {
            let error = outcome.error
            if cancelled || Self.urlErrorCode(error) == NSURLErrorCancelled { return .cancelled(url: url) }
            if let error = error as? NetworkError { return error }
            // A `guard`, not `error.map { … }`: the closure would be a function of its own.
            guard let error else { return .transport(Self.urlError(.badServerResponse), url: url) }
            return .transport(TransportOutcome.truncatedBody(error, declared: outcome.response?.expectedContentLength, received: Int64(outcome.data.count)), url: url)
        }
        // A streamed transfer accepted its status itself (a 206 too); its body is on disk.
        let streamed = outcome.streamedBytes != nil
        guard streamed || settings.acceptableStatusCodes.contains(httpResponse.statusCode) else {
            // The server's message is counted, not quoted (see NetworkError.message).
            return NetworkError(kind: .unacceptableStatus, message: ServerMessage.extract(from: outcome.data), url: url, response: httpResponse, data: outcome.data)
                .withServerText(quoted: false)
        }
        let response = NetworkResponse(request: outcome.request, httpResponse: httpResponse, data: outcome.data, payloadReader: streamed ? nil : settings.payloadReader, jsonDecoder: settings.jsonDecoder)
        if let context {
            do {
                for interceptor in chain {
                    try interceptor.validate(response, context: context)
                }
            } catch {
                return Self.failure(error, .unacceptableStatus, "", url: url, response: httpResponse, data: outcome.data)
            }
        }
        if let error = sink.map(response, lock: lock) { return error }
        if !plugIns.isEmpty {
            let credential = plugIns.credential
            for plugIn in plugIns {
                plugIn.didMap(response, credential: credential)
            }
        }
        return nil
    }

    /// The one place a retry is decided: the chain in order (the token first, then the
    /// host's and the request's interceptors, the retry engine last); the first answer
    /// that is not `.pass` wins, from any thread. A `.retry` is counted for its type.
    private func ask(_ index: Int, _ failure: NetworkError, context: RequestContext) {
        guard index < chain.count else { return decided(.pass, failure) }
        let interceptor = chain[index]
        interceptor.retry(failure, context: context) { [self] decision in
            if case .pass = decision { return ask(index + 1, failure, context: context) }
            if case .retry = decision {
                lock.lock()
                retriesBy.append(interceptor)
                lock.unlock()
            }
            decided(decision, failure)
        }
    }

    private func decided(_ decision: RetryDecision, _ failure: NetworkError) {
        lock.lock()
        // A request cancelled meanwhile has ended; a second answer is ignored.
        let first = deciding && !finished
        deciding = false
        lock.unlock()
        guard first else { return }
        switch decision {
        case .pass: finish(failure)
        case .fail(let replaced): finish(replaced)
        case .retry(let delay):
            guard delay > 0 else { return sendAttempt() }
            // The scheduler's handler runs serially: the next attempt starts off it.
            let key = DeadlineScheduler.shared.schedule(at: .now() + min(delay, 3_153_600_000)) { [self] in
                QueueHop.async(ExchangeTimers.queue) { [self] in sendAttempt() }
            }
            lock.lock()
            let stale = cancelled || finished
            if !stale { backoff = key }
            lock.unlock()
            if stale { DeadlineScheduler.shared.cancel(key) }
        }
    }

    func retryCount(decidedBy type: ObjectIdentifier) -> Int {
        lock.lock()
        defer { lock.unlock() }
        var count = 0
        for interceptor in retriesBy where ObjectIdentifier(Swift.type(of: interceptor)) == type { count += 1 }
        return count
    }

    /// Cancels the request wherever it is: in flight (the task's completion reports
    /// it); building, adapting, deciding or in a backoff (reported at once).
    func cancel() {
        lock.lock()
        guard !finished, !cancelled else { return lock.unlock() }
        cancelled = true
        let task = task
        stopClocks()
        lock.unlock()
        if let task { task.cancel() } else { finish(.cancelled(url: nil)) }
    }

    /// Under the lock: the attempt's clock and a pending backoff stop for good.
    private func stopClocks() {
        backoff.map(DeadlineScheduler.shared.cancel)
        backoff = nil
        stopClock()
    }

    /// Ends the request once, with `error` or (`nil`) the value the sink keeps: the
    /// interceptors' `didFinish`, then on the host's callback queue the unauthorized
    /// notification and the host's error handler for a failure that is not a
    /// cancellation, then the caller's completion. A success whose sink runs nothing of
    /// the caller's there (an awaited request, see ``ExchangeSink/deliversInPlace``) is
    /// delivered at once, on the finishing thread.
    func finish(_ error: NetworkError?) {
        let ended = Date()
        lock.lock()
        guard !finished else { return lock.unlock() }
        finished = true
        stopClocks()
        let started = startedAt ?? ended
        let metrics = RequestMetrics(
            queuedAt: min(queuedAt, started), startedAt: started, firstByteAt: firstByteAt, endedAt: ended,
            bytesSent: bytesSent, bytesReceived: bytesReceived, attempts: attempt
        )
        let (file, sent, response, data) = (bodyFile, lastRequest, lastResponse, lastData)
        lock.unlock()
        plugIns.forEach { $0.end() }
        file?.remove()
        // What only the request knows: its attempts, and whether its host quotes server messages.
        let error = error?.ending(attempts: metrics.attempts, quoting: settings.errorSentencesQuoteServerMessages)
        if !chain.isEmpty {
            let outcome = RequestOutcome(urlRequest: sent, response: response, data: data, error: error, metrics: metrics)
            let context = context(attempt: metrics.attempts)
            chain.forEach { $0.didFinish(outcome, context: context) }
        }
        if error == nil, sink.deliversInPlace {
            deliver(nil, metrics: metrics)
        } else {
            let failure = error
            QueueHop.async(settings.callbackQueue) { [self] in deliver(failure, metrics: metrics) }
        }
        service.exchangeFinished(self)
    }

    @inline(never)
    private func deliver(_ error: NetworkError?, metrics: RequestMetrics) {
        if let error, !error.isCancelled {
            if error.isUnauthorized {
                // Built with String keys (the one dictionary literal type the core already
                // has) and made `[AnyHashable: Any]` by the runtime's cast, which always
                // succeeds: an `AnyHashable` literal or upcast would compile its own hashing
                // and lookups (about 0.8 KB, 5 functions and 5 imported symbols).
                let info: [String: Any] = ["error": error]
                NotificationCenter.default.post(name: HostConfiguration.unauthorizedOperationNotification, object: service.configuration, userInfo: info as Any as? [AnyHashable: Any])
            }
            if !request.suppressesErrorHandler {
                settings.errorHandler?(request, error)
            }
        }
        sink.deliver(error, metrics: metrics, lock: lock)
        if error?.isCancelled == true {
            service.cancellationDelivered()
        }
    }
}

// The small makers both files of the exchange share, each compiled once (out of line).
extension RequestExchange {
    /// `URLError.timedOut` saying `words`, then `seconds` and " s." (``NetworkError/isTimeout``).
    @inline(never)
    static func timedOut(_ words: String, _ seconds: TimeInterval) -> URLError {
        urlError(.timedOut, words + String(seconds) + " s.")
    }

    /// A `URLError` of `code` as an `Error`, made and boxed in one place (every site would
    /// carry its conformance lookups).
    @inline(never)
    static func urlError(_ code: URLError.Code) -> any Error {
        urlError(code, "")
    }

    /// A `URLError` of `code`, saying `description` unless it is empty: the one place the
    /// exchange makes one, so it carries one specialization of its `userInfo` literal.
    @inline(never)
    static func urlError(_ code: URLError.Code, _ description: String) -> URLError {
        guard !description.isEmpty else { return URLError(code, userInfo: [String: Any]()) }  // not the default `[:]` (a literal)
        return URLError(code, userInfo: [NSLocalizedDescriptionKey: description])
    }

    /// What an interceptor threw or refused with: a ``NetworkError`` as is, anything else
    /// as a `kind` error saying `words` and the error's description (made in one place).
    @inline(never)
    static func failure(_ error: any Error, _ kind: NetworkError.Kind, _ words: String, url: URL?, response: HTTPURLResponse? = nil, data: Data? = nil) -> NetworkError {
        error as? NetworkError ?? NetworkError(kind: kind, message: words + error.localizedDescription, url: url, response: response, data: data, underlyingError: error)
    }

    /// The bytes of body `request` sends: its data, else the body file's length.
    @inline(never)
    static func bodySize(_ request: URLRequest, _ file: MultipartBodyFile?) -> Int {
        request.httpBody?.count ?? Int(file?.length ?? 0)
    }

    /// The code of a `URLError` (`nil` for another error): one cast, shared by the places
    /// that tell a timeout or a cancellation.
    @inline(never)
    static func urlErrorCode(_ error: (any Error)?) -> Int? {
        (error as? URLError)?.errorCode
    }
}
