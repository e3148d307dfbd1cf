import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request from its description to its single callback, every stage in one place (a
/// type per stage cost metadata and copies, not clarity). It knows no output type (that
/// is its ``ExchangeSink``) and runs in one direction: build → adapt (``adapt(_:_:context:)``)
/// → cache → transport (``transport(_:bodyFile:layers:plain:attempt:from:_:_:)``) →
/// validate → map, or on a failure decide a retry (``ask(_:_:context:)``) → deliver
/// (``finish(_:)``). It keeps the state between them under one `Lock`, keeps each
/// attempt's clock (the one place a request times out: it hears every byte as the
/// attempt's ``TransferActivity``), cancels, and finishes once.
final class RequestExchange: TransferActivity, @unchecked Sendable {
    // unchecked: every `var` is read and written only under `lock`; the `let`s are
    // immutable, and `request` is an immutable description the library only reads.
    let service: EasyNetworkService
    let request: any BaseAPIRequest
    let settings: HostSettings
    let sink: any ExchangeSink
    /// Every interceptor, in one ordered list that sees every step: the plug-ins' (the
    /// token) first, then the host's and the request's, the retry engine's last.
    let chain: [any RequestInterceptor]
    /// The host's optional features taking part (cache, coalescing, token, retries).
    let plugIns: [any RequestPlugIn]
    /// Whether a retry engine is in `chain`: without one only interceptors retry.
    let retries: Bool
    /// The number interceptors see; 0 when there are none.
    let requestID: Int
    /// The limits of every attempt, as URLSession's: no byte moving for `idle` seconds, and
    /// (optionally) `total` seconds after the attempt began.
    let idle: TimeInterval, total: TimeInterval?
    let priority: Float?
    let queuedAt: Date
    let uploadProgress: (@Sendable (Int64, Int64) -> Void)?
    /// No user code runs after the transport (library mapping, no interceptor, plug-in
    /// or envelope): a small successful answer is handled on the delegate queue.
    let handlesInline: Bool
    /// A plug-in carries every attempt itself (a download): it sends no body file.
    let carriesAttempts: Bool
    /// The session may keep the idle limit (a whole number of seconds, on Linux): the
    /// request is built with it as its `timeoutInterval`, and an attempt that needs no
    /// byte events goes out on a task with a completion handler (see ``send(_:context:)``).
    let sessionKeepsIdle: Bool
    let lock = Lock()

    @exclusivity(unchecked) var base: URLRequest?
    @exclusivity(unchecked) var bodyFile: MultipartBodyFile?
    /// Attempts sent, and the last whose transport completed (it may complete before
    /// `send` has stored its task).
    @exclusivity(unchecked) var attempt = 0, completedAttempt = 0
    @exclusivity(unchecked) var task: TransportTask?
    /// A scheduled retry (its ``DeadlineScheduler`` key), and whether one is being decided.
    @exclusivity(unchecked) var backoff: Int?
    @exclusivity(unchecked) var cancelled = false, finished = false, deciding = false
    /// Who decided each retry (see ``RequestContext/retryCount(decidedBy:)``): the
    /// interceptors themselves, an array type the exchange has anyway.
    @exclusivity(unchecked) var retriesBy: [any RequestInterceptor] = []
    @exclusivity(unchecked) var startedAt: Date?, firstByteAt: Date?
    @exclusivity(unchecked) var bytesSent = 0, bytesReceived = 0
    /// The last attempt's request and answer, kept only for interceptors.
    @exclusivity(unchecked) var lastRequest: URLRequest?, lastResponse: HTTPURLResponse?, lastData: Data?
    /// The current attempt's clock: whether it runs, when the attempt began and last moved
    /// bytes, its scheduler entry, whether the session keeps the idle limit (then the clock
    /// keeps only the total one), and the timeout it expired with.
    @exclusivity(unchecked) var timing = false, idleKept = false
    @exclusivity(unchecked) var clockStart = DispatchTime.distantFuture, lastActivity = DispatchTime.distantFuture
    @exclusivity(unchecked) var clockKey: Int?
    @exclusivity(unchecked) var expired: URLError?
    #if canImport(FoundationNetworking)
    /// Redirects this exchange followed itself in the current attempt (see `follow`).
    @exclusivity(unchecked) var hops = 0
    #endif

    /// `transfer`, when given, carries every attempt itself (a download, streamed to
    /// disk): only the features with an interceptor (the token) or a retrier join it, never the cache
    /// or coalescing, and only the request's own `totalTimeout` bounds an attempt.
    @_semantics("optimize.sil.specialize.generic.never")
    init(service: EasyNetworkService, request: any BaseAPIRequest, sink: any ExchangeSink, priority: Float?, queuedAt: Date, uploadProgress: (@Sendable (Int64, Int64) -> Void)?, transfer: (any RequestPlugIn)? = nil) {
        self.service = service
        self.request = request
        let settings = service.configuration.snapshot()
        self.settings = settings
        self.sink = sink
        // The host's list as it is (its storage shared, nothing copied) unless something joins it.
        var chain = settings.interceptors
        let own = request.interceptors
        if !own.isEmpty { chain += own }
        var plugIns: [any RequestPlugIn] = [], first: [any RequestInterceptor] = [], retrier: (any RequestInterceptor)?
        // The host's features taking part, in their order (the cache, coalescing, the token),
        // then `transfer`; one loop, no list of them made first.
        let features = settings.features
        for index in 0...features.count {
            let plugIn: any RequestPlugIn
            if index < features.count {
                guard let taking = features[index].plugIn(for: request, settings: settings, service: service) else { continue }
                plugIn = taking
            } else {
                guard let transfer else { break }
                plugIn = transfer
            }
            let interceptor = plugIn.interceptor, decides = plugIn.retrier
            if transfer != nil, index < features.count, interceptor == nil, decides == nil { continue }
            plugIns.append(plugIn)
            if let interceptor { first.append(interceptor) }
            if retrier == nil { retrier = decides }
        }
        if !first.isEmpty { chain = first + chain }
        if let retrier { chain.append(retrier) }
        self.plugIns = plugIns
        self.chain = chain
        retries = retrier != nil
        requestID = chain.isEmpty ? 0 : RequestContext.nextRequestID()
        idle = request.timeout ?? settings.timeout
        total = request.totalTimeout ?? (transfer == nil ? settings.totalTimeout : nil)
        self.priority = priority
        self.queuedAt = queuedAt
        self.uploadProgress = uploadProgress
        carriesAttempts = transfer != nil
        sessionKeepsIdle = transfer == nil && NetworkService.sessionKeepsIdle(idle)
        handlesInline = sink.mapsInline && chain.isEmpty && plugIns.isEmpty && settings.payloadReader == nil
    }

    @inline(never)  // three callers, each would allocate the box itself
    func context(attempt: Int) -> RequestContext {
        RequestContext(request: request, host: service.configuration, attempt: attempt, requestID: requestID, ledger: self)
    }

    /// Builds the request, then sends the first attempt; with `built`, starts from that
    /// request (an outbox's stored one, see ``EasyNetworkService/start(_:sink:uploadProgress:transfer:built:)``).
    func start(built: URLRequest?) {
        // A request whose own RetryPolicy retries on a host without the retry engine (the
        // EasyNetworkRetry product) is refused before anything is sent, never sent once.
        if !retries, let policy = request.retryPolicy, policy.maxAttempts > 1 {
            return finish(.library(.invalidRequest, "the request's retryPolicy retries (maxAttempts " + String(policy.maxAttempts)
                + "), but its host has no retry engine: import EasyNetworkRetry and set host.retryPolicy (.none keeps the host's other requests to one attempt)", url: nil))
        }
        if let built { return started(built, nil) }
        // A download streams its answer to disk and sends no body file: a multipart form
        // is refused before it is written, with a typed error, and nothing is sent.
        if carriesAttempts, URLRequestBuilder.multipartForm(of: request) != nil {
            return finish(.library(.invalidRequest, "A download cannot send a multipart body; send the form with a RequestOperation", url: nil))
        }
        BuildStage.run(request, builder: URLRequestBuilder(settings: settings), exactTimeout: sessionKeepsIdle) { [self] built, file in
            switch built {
            case .success(let urlRequest): started(urlRequest, file)
            case .failure(let error): finish(error)
            }
        }
    }

    private func started(_ urlRequest: URLRequest, _ file: MultipartBodyFile?) {
        lock.lock()
        let kept = !finished
        if kept { (base, bodyFile) = (urlRequest, file) }
        lock.unlock()
        guard kept else { file?.remove(); return }  // cancelled while the body was written
        sendAttempt()
    }

    /// One attempt of the built request: admitted by the plug-ins (a paused host refuses
    /// it), then adapted by the chain (the token first).
    func sendAttempt() {
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
        if chain.isEmpty {
            send(base, context: nil)
        } else {
            adapt(0, base, context: context(attempt: attempt))
        }
    }

    /// Each interceptor's asynchronous `adapt` in order, given what the one before returned,
    /// its headers checked as the request's own were (``HeaderFieldCheck``); a refusal fails
    /// the request (a ``NetworkError`` as is, anything else as `invalidRequest`).
    private func adapt(_ index: Int, _ urlRequest: URLRequest, context: RequestContext) {
        guard index < chain.count else { return send(urlRequest, context: context) }
        let interceptor = chain[index]
        interceptor.adapt(urlRequest, context: context) { [self] result in
            switch result {
            case .success(let adapted):
                if let refused = HeaderFieldCheck.failure(in: adapted.allHTTPHeaderFields, url: adapted.url, source: "", of: type(of: interceptor)) {
                    return finish(refused)
                }
                adapt(index + 1, adapted, context: context)
            case .failure(let error):
                finish(Self.failure(error, .invalidRequest, "an interceptor refused the request: ", url: urlRequest.url))
            }
        }
    }

    private func send(_ adapted: URLRequest, context: RequestContext?) {
        lock.lock()
        // Adapting may have taken a while: a request cancelled meanwhile has ended.
        let (ended, bodyFile, attempt) = (cancelled || finished, bodyFile, attempt)
        lock.unlock()
        if ended { return finish(.cancelled(url: adapted.url)) }
        var urlRequest = adapted
        // Before the first attempt (no body file), a plug-in (the cache) may answer with a
        // stored response mapped into the sink; it is asked with the request as sent, so
        // its key holds the credentials.
        let layers = bodyFile == nil ? plugIns : []
        if attempt == 1, !layers.isEmpty {
            let credential = layers.credential, queue = settings.callbackQueue
            for layer in layers where layer.answers(&urlRequest, credential: credential, sink: sink, lock: lock, queue: queue) {
                lock.lock()
                self.attempt = 0  // nothing was sent, so no attempt counts
                lock.unlock()
                return finish(nil)
            }
        }
        if let context {
            chain.forEach { $0.willSend(urlRequest, context: context) }
        }
        let bodySize = Self.bodySize(urlRequest, bodyFile)
        // Plain (a task with a completion handler, no byte events) when the session keeps
        // the idle limit as built (an interceptor may have changed it), no body file is
        // sent and nobody watches the upload: the clock then keeps only the total limit,
        // and without one (and without plug-ins to hear bytes) it does not run at all.
        let plain = sessionKeepsIdle && bodyFile == nil && urlRequest.timeoutInterval == idle
            && (uploadProgress == nil || (bodySize == 0 && urlRequest.httpBodyStream == nil))
        // Recorded before the transfer starts: a fast one can end before dataTask returns.
        lock.lock()
        if context != nil { lastRequest = urlRequest }
        bytesSent += bodySize
        clockStart = .now()
        lastActivity = clockStart
        expired = nil
        idleKept = plain && layers.isEmpty
        timing = !idleKept || total != nil
        lock.unlock()
        guard let task = transport(urlRequest, bodyFile: bodyFile, layers: layers, plain: plain, attempt: attempt, from: 0, nil, nil) else {
            return  // the session is gone; the completion reported it
        }
        lock.lock()
        let proceed = !cancelled && !finished
        if proceed, completedAttempt < attempt {
            self.task = task
            // Every way the attempt or the exchange ends stops the clock. Measured from
            // its start, without reading the clock again: it may expire at once.
            return tick(attempt, now: clockStart)
        }
        lock.unlock()
        if !proceed { task.cancel() }
    }

    /// Hands the attempt to the plug-ins in order (coalescing may share a transfer; a
    /// download's plug-in, the last, carries it itself), then to the host's session, this
    /// exchange hearing every byte. A `plain` attempt reaching the session with its own
    /// clock goes out on a task with a completion handler. The completion runs once: on
    /// the session's delegate queue, except on the sending thread when the session is gone
    /// or a download fails before its task starts, and on the cancelling thread when a
    /// coalesced request leaves a shared transfer. `nil` when the session is gone.
    @inline(never)  // one copy for the attempt, its followed redirects and every plug-in
    private func transport(
        _ urlRequest: URLRequest, bodyFile: MultipartBodyFile?, layers: [any RequestPlugIn], plain: Bool, attempt: Int,
        from index: Int, _ heard: (any TransferActivity)?, _ given: (@Sendable (TransportOutcome) -> Void)?
    ) -> TransportTask? {
        // Not `given ?? { … }`: the generic `??` would wrap the closure in two reabstraction thunks.
        let arrived: @Sendable (TransportOutcome) -> Void
        if let given {
            arrived = given
        } else {
            arrived = { [self] in arrival($0, sent: urlRequest, attempt: attempt, plain: plain) }
        }
        let activity = heard ?? self  // `nil`: this exchange's own clock hears the bytes
        guard index == layers.count else {
            return layers[index].send(urlRequest, activity: activity, next: { [self] in
                transport($0, bodyFile: bodyFile, layers: layers, plain: plain, attempt: attempt, from: index + 1, $1, $2)
            }, arrived: arrived)
        }
        // Plain only with the attempt's own clock: a shared transfer hears bytes for every seat.
        guard plain, activity === self else {
            return service.configuration.transport.dataTask(with: urlRequest, bodyFile: bodyFile, priority: priority, uploadProgress: uploadProgress, activity: activity, completion: arrived)
        }
        if !layers.isEmpty {
            lock.lock()
            idleKept = true
            lock.unlock()
        }
        return service.configuration.transport.plainTask(with: urlRequest, priority: priority, completion: arrived)
    }

    /// The transport of `sent` ended, usually on the session's delegate queue: ends the
    /// attempt (its clock stops before any user code runs), then leaves that queue for
    /// ``ResponseStage``. On Linux a redirect the session left to the exchange is sent first.
    private func arrival(_ outcome: consuming TransportOutcome, sent: URLRequest, attempt: Int, plain: Bool) {
        #if canImport(FoundationNetworking)
        if let next = outcome.redirect {
            guard let refused = follow(next, after: sent, response: outcome.response, attempt: attempt, plain: plain) else { return }
            outcome.error = refused
        }
        #endif
        lock.lock()
        var timedOut = expired
        stopClock()
        // The session's own idle timeout (plain attempts; elsewhere a backstop) reads as ours.
        if timedOut == nil, let error = outcome.error, Self.urlErrorCode(error) == NSURLErrorTimedOut {
            timedOut = Self.timedOut("No byte was sent or received for ", idle)
        }
        task = nil
        completedAttempt = max(completedAttempt, attempt)
        if !chain.isEmpty { (lastResponse, lastData) = (outcome.response, outcome.data) }
        firstByteAt = outcome.firstByteAt
        bytesReceived += outcome.streamedBytes ?? outcome.data.count
        let wasCancelled = cancelled
        lock.unlock()
        // A timeout wins over what arrived (a cancellation over both).
        if let timedOut, !wasCancelled {
            outcome.response = nil
            outcome.error = timedOut
        }
        if handlesInline, outcome.error == nil, outcome.data.count < ResponseStage.inlineLimit {
            return received(outcome, cancelled: wasCancelled, attempt: attempt)
        }
        let ended = outcome
        QueueHop.async(ResponseStage.queue) { [self] in received(ended, cancelled: wasCancelled, attempt: attempt) }
    }

    #if canImport(FoundationNetworking)
    /// Linux: sends `redirect`, a redirect of `sent` that keeps its method, which the session
    /// left to the exchange because swift-corelibs-foundation would send it without the body
    /// (see ``SessionDelegate``). It goes out with the body `sent` had (the body file read
    /// again), within the same attempt and on the same clock, without adapting again, as
    /// URLSession follows a redirect. Returns `nil` when it went out, else the error that
    /// ends the attempt: cancelled meanwhile, too many redirects (20, as URLSession), or a
    /// body stream that cannot be read twice (never sent empty).
    @inline(never)
    private func follow(_ redirect: URLRequest, after sent: URLRequest, response: HTTPURLResponse?, attempt: Int, plain: Bool) -> (any Error)? {
        lock.lock()
        hops += 1
        let (ended, hop, bodyFile) = (cancelled || finished, hops, bodyFile)
        lock.unlock()
        if ended { return Self.urlError(.cancelled) }
        if hop > 20 { return Self.urlError(.httpTooManyRedirects) }
        var next = redirect
        if bodyFile == nil {
            guard sent.httpBodyStream == nil else { return SessionDelegate.unsentRedirect(response) }
            if next.httpBody == nil { next.httpBody = sent.httpBody }  // the host's redirectHandler may have set one
        }
        guard let task = transport(next, bodyFile: bodyFile, layers: [], plain: plain, attempt: attempt, from: 0, nil, nil) else {
            return nil  // the session is gone; the completion reported it
        }
        lock.lock()
        // The hop may have ended already (a quick answer), or the request been cancelled.
        let proceed = !cancelled && !finished
        let current = proceed && hops == hop && completedAttempt < attempt
        if current { self.task = task }
        bytesSent += Self.bodySize(next, bodyFile)
        let expiredMeanwhile = current && expired != nil
        lock.unlock()
        if !proceed || expiredMeanwhile {
            task.cancel()  // its end reports the cancellation, or the timeout that fired
        }
        return nil
    }
    #endif

    // MARK: the clock

    func transferMoved() {
        let now = DispatchTime.now()
        lock.lock()
        lastActivity = now
        lock.unlock()
    }

    /// With the lock held (it lets go): fires when the attempt's time is up (cancelling
    /// its task, whose end then reports `expired`), or sets the scheduler for the first
    /// moment it could be; bytes that moved meanwhile only move that moment.
    private func tick(_ current: Int, now: DispatchTime) {
        guard timing, current == attempt else { return lock.unlock() }
        clockKey = nil
        let idleEnd = lastActivity + Self.clamped(idle)
        let totalEnd = total.map { clockStart + Self.clamped($0) }
        let byTotal = idleKept || totalEnd.map { $0 <= idleEnd } == true
        guard let expiry = byTotal ? totalEnd : idleEnd else { return lock.unlock() }
        guard expiry <= now else {
            // A strong reference: every way the attempt ends stops the clock, which removes it.
            clockKey = DeadlineScheduler.shared.schedule(at: expiry) { [self] in
                let now = DispatchTime.now()
                lock.lock()
                tick(current, now: now)
            }
            return lock.unlock()
        }
        timing = false
        expired = byTotal
            ? Self.timedOut("The request exceeded its total timeout of ", total ?? 0)
            : Self.timedOut("No byte was sent or received for ", idle)
        let expiredTask = task
        lock.unlock()
        expiredTask?.cancel()
    }

    /// Under the lock: the attempt's clock stops for good.
    func stopClock() {
        timing = false
        clockKey.map(DeadlineScheduler.shared.cancel)
        clockKey = nil
    }

    /// Seconds as a `DispatchTime` offset: negative and NaN as 0, huge as ~100 years.
    private static func clamped(_ seconds: TimeInterval) -> Double {
        seconds > 0 ? min(seconds, 3_153_600_000) : 0
    }
}
