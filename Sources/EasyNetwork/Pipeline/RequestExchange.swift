import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request from its description to its single callback. It knows no output type
/// (that is its ``ExchangeSink``) and decides nothing itself: it runs the stages in
/// one direction, ``BuildStage`` → ``AdaptStage`` → cache → ``TransportStage`` →
/// ``ValidateStage`` → ``MapStage`` or ``RetryStage`` → ``DeliverStage``, keeps the
/// state between them, cancels, and finishes once.
final class RequestExchange: RetryLedger, @unchecked Sendable {
    // unchecked: every `var` is read and written only under `lock`; the `let`s are
    // immutable, and `request` is an immutable description the library only reads.
    let service: EasyNetworkService
    let host: HostConfiguration
    let request: any BaseAPIRequest
    let settings: HostConfiguration.SettingsSnapshot
    let sink: any ExchangeSink
    /// The host's and the request's interceptors: they see every step.
    let interceptors: [any RequestInterceptor]
    /// Those that adapt and decide retries: the plug-ins' (the token) first, then `interceptors`.
    private let chain: [any RequestInterceptor]
    /// The host's optional features taking part (cache, coalescing, token, retries).
    private let plugIns: [any RequestPlugIn]
    /// Asked last about a retry (the retry engine), or `nil`: nothing retries but interceptors.
    private let retrier: (any RequestInterceptor)?
    /// The number interceptors see; 0 when there are none.
    private let requestID: Int
    private let limits: AttemptDeadline
    private let priority: Float?
    private let queuedAt: Date
    private let uploadProgress: (@Sendable (Int64, Int64) -> Void)?
    /// No user code runs after the transport (library mapping, no interceptor, plug-in
    /// or envelope): a small successful answer is handled on the delegate queue.
    private let handlesInline: Bool
    /// A plug-in carries every attempt itself (a download): it sends no body file.
    private let carriesAttempts: Bool
    /// The session may keep the idle limit (a whole number of seconds, on Linux): the
    /// request is built with it as its `timeoutInterval`, and an attempt that needs no
    /// byte events goes out on a task with a completion handler (see ``send``).
    private let sessionKeepsIdle: Bool
    let lock = Lock()

    private var base: URLRequest?
    private var bodyFile: MultipartBodyFile?
    /// Attempts sent, and the last whose transport completed (it may complete before
    /// `send` has stored its task and clock).
    private var attempt = 0, completedAttempt = 0
    private var task: TransportTask?
    private var timer: AttemptTimer?
    /// A scheduled retry (its ``DeadlineScheduler`` key), and whether one is being decided.
    private var backoff: Int?
    private var cancelled = false, finished = false, deciding = false
    /// Who decided each retry (see ``RequestContext/retryCount(decidedBy:)``).
    private var retriesBy: [ObjectIdentifier] = []
    private var startedAt: Date?, firstByteAt: Date?
    private var bytesSent = 0, bytesReceived = 0
    /// The last attempt's request and answer, kept only for interceptors.
    private var last: (URLRequest?, HTTPURLResponse?, Data?) = (nil, nil, nil)
    #if canImport(FoundationNetworking)
    /// Redirects this exchange followed itself in the current attempt (see `follow`).
    private var hops = 0
    #endif

    /// `transfer`, when given, carries every attempt itself (a download, streamed to
    /// disk): only the features with an interceptor (the token) or a retrier join it, never the cache
    /// or coalescing, and only the request's own `totalTimeout` bounds an attempt.
    @_semantics("optimize.sil.specialize.generic.never")
    init(service: EasyNetworkService, request: any BaseAPIRequest, sink: any ExchangeSink, priority: Float?, queuedAt: Date, uploadProgress: (@Sendable (Int64, Int64) -> Void)?, transfer: (any RequestPlugIn)? = nil) {
        self.service = service
        host = service.configuration
        self.request = request
        let settings = host.snapshot()
        self.settings = settings
        self.sink = sink
        let own = request.interceptors  // usually none: then no concatenation at all
        let interceptors = own.isEmpty ? settings.settings.interceptors : settings.settings.interceptors + own
        self.interceptors = interceptors
        var plugIns = settings.plugIns(for: request, service: service)
        if let transfer {
            plugIns = plugIns.filter { $0.interceptor != nil || $0.retrier != nil } + [transfer]
        }
        self.plugIns = plugIns
        var retrier: (any RequestInterceptor)?
        for plugIn in plugIns where retrier == nil {
            retrier = plugIn.retrier
        }
        self.retrier = retrier
        chain = plugIns.isEmpty ? interceptors : plugIns.compactMap(\.interceptor) + interceptors
        requestID = interceptors.isEmpty ? 0 : RequestContext.nextRequestID()
        limits = AttemptDeadline(idle: request.timeout ?? settings.settings.timeout, total: request.totalTimeout ?? (transfer == nil ? settings.settings.totalTimeout : nil))
        self.priority = priority
        self.queuedAt = queuedAt
        self.uploadProgress = uploadProgress
        carriesAttempts = transfer != nil
        sessionKeepsIdle = transfer == nil && NetworkService.sessionKeepsIdle(limits.idle)
        handlesInline = sink.mapsInline && interceptors.isEmpty && plugIns.isEmpty && settings.settings.payloadReader == nil
    }

    func context(attempt: Int) -> RequestContext {
        RequestContext(request: request, host: host, attempt: attempt, requestID: requestID, ledger: self)
    }

    /// Builds the request, then sends the first attempt.
    func start() {
        if let refused = unretried { return finish(refused) }
        // A download streams its answer to disk and sends no body file: a multipart form
        // is refused before it is written, with a typed error, and nothing is sent.
        if carriesAttempts, URLRequestBuilder.multipartForm(of: request) != nil {
            return finish(NetworkError(kind: .invalidRequest, message: "A download cannot send a multipart body; send the form with a RequestOperation"))
        }
        BuildStage.run(request, builder: URLRequestBuilder(configuration: host), exactTimeout: sessionKeepsIdle) { [self] built, file in
            let urlRequest: URLRequest
            switch built {
            case .success(let value): urlRequest = value
            case .failure(let error): return finish(error)
            }
            lock.lock()
            let kept = !finished
            if kept { (base, bodyFile) = (urlRequest, file) }
            lock.unlock()
            guard kept else { file?.remove(); return }  // cancelled while the body was written
            sendAttempt()
        }
    }

    /// Starts from `urlRequest`, built before (an outbox's stored request, see
    /// ``EasyNetworkService/start(_:built:sink:)``): no build
    /// stage; every attempt adapts, sends, validates, retries, maps and delivers as usual.
    func start(built urlRequest: URLRequest) {
        if let refused = unretried { return finish(refused) }
        lock.lock()
        let kept = !finished
        if kept { base = urlRequest }
        lock.unlock()
        if kept { sendAttempt() }
    }

    /// A request whose own ``RetryPolicy`` retries on a host without the retry engine
    /// (the `EasyNetworkRetry` product): refused before anything is sent, never silently
    /// sent once.
    private var unretried: NetworkError? {
        guard retrier == nil, let policy = request.retryPolicy, policy.maxAttempts > 1 else { return nil }
        return NetworkError(
            kind: .invalidRequest,
            message: "the request's retryPolicy retries (maxAttempts " + String(policy.maxAttempts)
                + "), but its host has no retry engine: import EasyNetworkRetry and set host.retryPolicy "
                + "(.none keeps the host's other requests to one attempt)"
        )
    }

    /// One attempt of the built request: admitted by the plug-ins (a paused host refuses
    /// it), then adapted by the chain (the token first).
    private func sendAttempt() {
        lock.lock()
        guard !cancelled, !finished, let base else {
            lock.unlock()
            return finish(.cancelled(url: nil))
        }
        attempt += 1
        let attempt = attempt
        #if canImport(FoundationNetworking)
        hops = 0  // the redirect limit is per attempt, as URLSession's
        #endif
        if startedAt == nil { startedAt = Date() }
        lock.unlock()
        for plugIn in plugIns {
            guard let refused = plugIn.admit(attempt: attempt, url: base.url) else { continue }
            lock.lock()
            self.attempt -= 1  // nothing was sent
            lock.unlock()
            return finish(refused)
        }
        // Only interceptors read the context: most requests never make one.
        guard !chain.isEmpty else {
            return send(base, attempt: attempt, context: nil)
        }
        let context = context(attempt: attempt)
        AdaptStage.run(base, interceptors: chain, context: context) { [self] adapted in
            switch adapted {
            case .success(let urlRequest): send(urlRequest, attempt: attempt, context: context)
            case .failure(let error): finish(error)
            }
        }
    }

    private func send(_ adapted: URLRequest, attempt: Int, context: RequestContext?) {
        lock.lock()
        // Adapting may have taken a while: a request cancelled meanwhile has ended.
        let (ended, bodyFile) = (cancelled || finished, bodyFile)
        lock.unlock()
        if ended { return finish(.cancelled(url: adapted.url)) }
        var urlRequest = adapted
        // The cache is asked with the request as sent, so its key holds the credentials.
        let layers = bodyFile == nil ? plugIns : []
        if attempt == 1, !layers.isEmpty,
           TransportStage.answered(&urlRequest, plugIns: layers, sink: sink, lock: lock, queue: settings.settings.callbackQueue) {
            lock.lock()
            self.attempt = 0  // nothing was sent, so no attempt counts
            lock.unlock()
            return finish(nil)
        }
        if let context {
            interceptors.forEach { $0.willSend(urlRequest, context: context) }
        }
        let seen = !interceptors.isEmpty
        let bodySize = urlRequest.httpBody?.count ?? Int(bodyFile?.length ?? 0)
        // Recorded before the transfer starts: a fast one can end before dataTask returns.
        lock.lock()
        if seen { last.0 = urlRequest }
        bytesSent += bodySize
        lock.unlock()
        // Plain (a task with a completion handler, no byte events) when the session keeps
        // the idle limit as built (an interceptor may have changed it), no body file is
        // sent and nobody watches the upload: its clock then keeps only the total limit,
        // and without one (and without plug-ins to hear bytes) there is no clock at all.
        let plain = sessionKeepsIdle && bodyFile == nil && urlRequest.timeoutInterval == limits.idle
            && (uploadProgress == nil || (bodySize == 0 && urlRequest.httpBodyStream == nil))
        let timer = plain && layers.isEmpty && limits.total == nil ? nil : AttemptTimer(limits, lock: lock, idleKeptBySession: plain && layers.isEmpty)
        let task = TransportStage.send(
            urlRequest, bodyFile: bodyFile, plugIns: layers, transport: host.transport,
            priority: priority, uploadProgress: uploadProgress, plain: plain, timer: timer,
            arrived: arrival(of: urlRequest, attempt: attempt, seen: seen, context: context, plain: plain, timer: timer)
        )
        guard let task else { return }  // the session is gone; the completion reported it
        lock.lock()
        let proceed = !cancelled && !finished
        let arm = proceed && completedAttempt < attempt
        if arm {
            self.task = task
            self.timer = timer  // every way the attempt or the exchange ends stops it
        }
        lock.unlock()
        if arm {
            timer?.arm(task)  // outside the lock: it may expire at once; a stopped timer stays off
        } else if !proceed {
            task.cancel()
        }
    }

    /// What runs when the transport of `sent` ends, usually on the session's delegate queue
    /// (see ``TransportStage``): ends the attempt, then leaves that queue. On Linux a
    /// redirect the session left to the exchange is sent first (see `follow`).
    private func arrival(of sent: URLRequest, attempt: Int, seen: Bool, context: RequestContext?, plain: Bool, timer: AttemptTimer?) -> @Sendable (TransportOutcome) -> Void {
        { [self] arrived in
            #if canImport(FoundationNetworking)
            var ended = arrived
            if let next = ended.redirect {
                guard let refused = follow(next, after: sent, response: ended.response, attempt: attempt, seen: seen, context: context, plain: plain, timer: timer) else { return }
                ended.error = refused
            }
            let outcome = ended
            #else
            let outcome = arrived
            #endif
            let ending = transportEnded(outcome, attempt: attempt, seen: seen)
            if handlesInline, outcome.error == nil, outcome.data.count < ResponseStage.inlineLimit {
                return received(outcome, ending: ending, attempt: attempt, context: context)
            }
            ResponseStage.run { [self] in received(outcome, ending: ending, attempt: attempt, context: context) }
        }
    }

    #if canImport(FoundationNetworking)
    /// Linux: sends `redirect`, a redirect of `sent` that keeps its method, which the session
    /// left to the exchange because swift-corelibs-foundation would send it without the body
    /// (see ``SessionDelegate``). It goes out with the body `sent` had (the body file read
    /// again), within the same attempt and on the same clock, without adapting again, as
    /// URLSession follows a redirect. Returns `nil` when it went out, else the error that
    /// ends the attempt: cancelled meanwhile, too many redirects (20, as URLSession), or a
    /// body stream that cannot be read twice (never sent empty).
    @inline(never)  // cold: two call sites in one closure
    private func follow(
        _ redirect: URLRequest, after sent: URLRequest, response: HTTPURLResponse?, attempt: Int, seen: Bool,
        context: RequestContext?, plain: Bool, timer: AttemptTimer?
    ) -> (any Error)? {
        lock.lock()
        hops += 1
        let (ended, hop, bodyFile) = (cancelled || finished, hops, bodyFile)
        lock.unlock()
        if ended { return URLError(.cancelled) }
        if hop > 20 { return URLError(.httpTooManyRedirects) }
        var next = redirect
        if bodyFile == nil {
            guard sent.httpBodyStream == nil else { return SessionDelegate.unsentRedirect(response) }
            if next.httpBody == nil { next.httpBody = sent.httpBody }  // the host's redirectHandler may have set one
        }
        let task = TransportStage.send(
            next, bodyFile: bodyFile, plugIns: [], transport: host.transport, priority: priority,
            uploadProgress: uploadProgress, plain: plain, timer: timer,
            arrived: arrival(of: next, attempt: attempt, seen: seen, context: context, plain: plain, timer: timer)
        )
        guard let task else { return nil }  // the session is gone; the completion reported it
        lock.lock()
        // The hop may have ended already (a quick answer), or the request been cancelled.
        let proceed = !cancelled && !finished
        let current = proceed && hops == hop && completedAttempt < attempt
        if current { self.task = task }
        bytesSent += next.httpBody?.count ?? Int(bodyFile?.length ?? 0)
        lock.unlock()
        if !proceed || (current && timer?.follow(task) == false) {
            task.cancel()  // its end reports the cancellation, or the timeout that fired
        }
        return nil
    }
    #endif

    /// The attempt's transport ended: disarms its clock (before any user code runs)
    /// and records what arrived. Returns whether it was cancelled and the timeout it passed.
    private func transportEnded(_ outcome: TransportOutcome, attempt: Int, seen: Bool) -> (cancelled: Bool, timedOut: URLError?) {
        lock.lock()
        defer { lock.unlock() }
        var timedOut = timer?.stop()
        // The session's own idle timeout (plain attempts; elsewhere a backstop) reads as ours.
        if timedOut == nil, outcome.error != nil, (outcome.error as? URLError)?.errorCode == NSURLErrorTimedOut {
            timedOut = limits.idleError
        }
        timer = nil
        task = nil
        completedAttempt = max(completedAttempt, attempt)
        if seen { last = (last.0, outcome.response, outcome.data) }
        firstByteAt = outcome.firstByteAt
        bytesReceived += outcome.streamedBytes ?? outcome.data.count
        return (cancelled, timedOut)
    }

    /// On the ``ResponseStage`` queue: validate, then map or decide a retry.
    private func received(_ outcome: TransportOutcome, ending: (cancelled: Bool, timedOut: URLError?), attempt: Int, context: RequestContext?) {
        let validated = ValidateStage.run(
            outcome, cancelled: ending.cancelled, timedOut: ending.timedOut, settings: settings,
            plugIns: plugIns, interceptors: interceptors, context: context
        )
        let failure: NetworkError
        switch validated {
        case .success(let response):
            guard let error = MapStage.run(response, sink: sink, lock: lock, plugIns: plugIns) else {
                return finish(nil)
            }
            failure = error
        case .failure(let error):
            failure = error
        }
        if failure.isCancelled { return finish(failure) }
        lock.lock()
        let asking = !cancelled && !finished
        deciding = asking
        lock.unlock()
        // Cancelled after its answer arrived: it ends as cancelled, nothing is asked.
        guard asking else { return finish(.cancelled(url: outcome.request.url)) }
        // Nobody to ask (no interceptor, no retry engine): the failure is final.
        guard !chain.isEmpty || retrier != nil else { return finish(failure) }
        let context = context ?? self.context(attempt: attempt)
        RetryStage.decide(failure, interceptors: chain, last: retrier, context: context) { [self] decision in
            lock.lock()
            // A request cancelled meanwhile has ended; a second answer is ignored.
            let first = deciding && !finished
            deciding = false
            lock.unlock()
            guard first else { return }
            switch decision {
            case .pass: finish(failure)
            case .fail(let replaced): finish(replaced)
            case .retry(let delay): scheduleRetry(after: delay)
            }
        }
    }

    private func scheduleRetry(after delay: TimeInterval) {
        guard let key = RetryStage.backoff(after: delay, { [self] in sendAttempt() }) else { return }
        lock.lock()
        let stale = cancelled || finished
        if !stale { backoff = key }
        lock.unlock()
        if stale { DeadlineScheduler.shared.cancel(key) }
    }

    func retryCount(decidedBy type: ObjectIdentifier) -> Int {
        lock.lock(); defer { lock.unlock() }
        return retriesBy.reduce(0) { $1 == type ? $0 + 1 : $0 }
    }

    func recordRetry(decidedBy type: ObjectIdentifier) {
        lock.lock(); defer { lock.unlock() }
        retriesBy.append(type)
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
        // In flight, its transfer's end reports the cancellation; otherwise it ends now.
        if let task { task.cancel() } else { finish(.cancelled(url: nil)) }
    }

    /// Under the lock: the attempt's clock and a pending backoff stop for good.
    private func stopClocks() {
        backoff.map(DeadlineScheduler.shared.cancel)
        backoff = nil
        timer?.stop()
        timer = nil
    }

    /// Ends the request once: with `error`, or (`nil`) with the value the sink keeps.
    private func finish(_ error: NetworkError?) {
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
        let (file, last) = (bodyFile, interceptors.isEmpty ? nil : last)
        lock.unlock()
        plugIns.forEach { $0.end() }
        file?.remove()
        // What only the request knows: its attempts, and whether its host quotes server messages.
        var error = error
        error?.attempts = metrics.attempts
        if settings.settings.errorSentencesQuoteServerMessages, let counted = error, counted.countsServerText {
            error = counted.withServerText(quoted: true)
        }
        DeliverStage.run(error, metrics: metrics, last: last, exchange: self)
        service.exchangeFinished(self)
    }
}
