import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends ``BaseAPIRequest``s to one host and calls back exactly once per request.
///
/// It builds the URL (the `api` path appended to the base URL's path), merges headers,
/// encodes parameters, runs the host's interceptors, token and retry policy, checks the
/// status code and the envelope, decodes the body, then calls back on the host's
/// `callbackQueue`. A 401 also posts ``HostConfiguration/unauthorizedOperationNotification``.
///
/// A ``ServiceOperation`` owns one service. ``cancel()`` cancels every request it
/// is running and is sticky: requests made afterwards fail at once as cancelled.
public final class EasyNetworkService: @unchecked Sendable {
    // unchecked: every `var` is read and written only under `lock` (which also makes them
    // `@exclusivity(unchecked)`: no dynamic access checks).
    /// The host this service talks to.
    public let configuration: HostConfiguration
    /// From the operations' pool (see ``OperationLock``): a service, made per operation,
    /// allocates no mutex. Nothing under it calls out or takes another lock.
    private var lock: OperationLock { OperationLock(for: self) }
    // Size: no initial values where fields are declared (in a public type each compiles a
    // function with an unwind entry): `init` sets every one, and `Optional<T>` is spelled
    // out because `T?` has an implicit `= nil`.
    @exclusivity(unchecked) private var cancelled: Bool
    /// The request running (usually the only one: an operation's), and any others, so
    /// that the usual single request allocates no array.
    @exclusivity(unchecked) private var exchange: Optional<RequestExchange>
    @exclusivity(unchecked) private var moreExchanges: [RequestExchange]
    @exclusivity(unchecked) private var priority: Optional<Float>
    @exclusivity(unchecked) private var queued: Optional<Date>
    @exclusivity(unchecked) private var onCancelled: Optional<@Sendable () -> Void>
    /// The queue running this service's operation, which lends it a slot while a
    /// request waits for a token refresh.
    private weak var lender: Optional<NetworkQueue>

    /// Creates a service for `configuration` (the seed's `EasyNetworkService(conf)`).
    @inline(never)  // one copy, not another inside the allocating entry
    public init(_ configuration: HostConfiguration) {
        self.configuration = configuration
        cancelled = false
        exchange = nil
        moreExchanges = []
        priority = nil
        queued = nil
        onCancelled = nil
        lender = nil
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }

    /// Sends `request` and calls exactly one of the closures on the host's callback queue.
    ///
    /// - Parameters:
    ///   - request: the request to send.
    ///   - success: the payload decoded by `JSONSerialization` (a dictionary, an array
    ///     or a fragment; with an envelope, its payload), or `nil` for an empty body.
    ///   - failure: a ``NetworkError``: bad request, encoding, transport, status,
    ///     business, a body that is not JSON, or cancellation.
    public func request(
        _ request: BaseAPIRequest,
        success: (@Sendable (Any?) -> Void)? = nil,
        failure: (@Sendable (NetworkError) -> Void)? = nil
    ) {
        start(request, sink: JSONSink(success: success, failure: failure), uploadProgress: nil, transfer: nil, built: nil)
    }

    /// Sends `request`, runs `transform` on the successful response off the callback
    /// queue, and calls `completion` exactly once on the host's callback queue.
    ///
    /// An error thrown by `transform` arrives as a ``NetworkError`` of kind
    /// ``NetworkError/Kind-swift.enum/decoding`` (a thrown `NetworkError` is passed on as is).
    @_alwaysEmitIntoClient  // in the caller: the seed program performs no typed request
    public func perform<Output>(
        _ request: BaseAPIRequest,
        transform: @escaping @Sendable (NetworkResponse) throws -> Output,
        completion: @escaping @Sendable (Result<Output, NetworkError>) -> Void
    ) {
        perform(request, transform: transform, uploadProgress: nil, cachedValue: nil, deliversInPlace: false) { result, _ in completion(result) }
    }

    /// ``perform(_:transform:completion:)`` that also hands over the request's metrics
    /// and reports upload progress (bytes sent, bytes to send) from the session's queue.
    /// `deliversInPlace`: a success may reach `completion` on the thread that mapped it
    /// (see ``ExchangeSink/deliversInPlace``).
    @usableFromInline
    func perform<Output>(
        _ request: BaseAPIRequest,
        transform: @escaping @Sendable (NetworkResponse) throws -> Output,
        uploadProgress: (@Sendable (Int64, Int64) -> Void)? = nil,
        cachedValue: (@Sendable (Output) -> Void)? = nil,
        deliversInPlace: Bool = false,
        completion: @escaping @Sendable (Result<Output, NetworkError>, RequestMetrics) -> Void
    ) {
        let sink = TypedSink(transform: transform, cachedValue: cachedValue, completion: completion, deliversInPlace: deliversInPlace)
        start(request, sink: sink, uploadProgress: uploadProgress, transfer: nil, built: nil)
    }

    /// Sends `request` into `sink`: the non-generic part of `perform`. `transfer` carries
    /// the attempts of a download (see ``RequestExchange``); `built`, the request built
    /// before (an outbox's stored one), starts the exchange at adapting it, with no build
    /// stage. (One entry for every caller: each would compile a forwarder of its own.)
    @inline(never) @_semantics("optimize.sil.specialize.generic.never")
    package func start(_ request: BaseAPIRequest, sink: any ExchangeSink, uploadProgress: (@Sendable (Int64, Int64) -> Void)?, transfer: (any RequestPlugIn)?, built: URLRequest?) {
        lock.lock()
        let (priority, queuedAt) = (priority, queued)
        lock.unlock()
        let exchange = RequestExchange(service: self, request: request, sink: sink, priority: priority, queuedAt: queuedAt ?? Date(), uploadProgress: uploadProgress, transfer: transfer)
        lock.lock()
        let admitted = !cancelled
        if admitted {
            if self.exchange == nil {
                self.exchange = exchange
            } else {
                moreExchanges.append(exchange)
            }
        }
        lock.unlock()
        if admitted {
            exchange.start(built: built)
        } else {
            exchange.cancel()
        }
    }

    /// Cancels every running request of this service; each reports a cancellation.
    /// Requests made afterwards fail at once as cancelled.
    public func cancel() {
        lock.lock()
        cancelled = true
        let (first, more) = (exchange, moreExchanges)
        lock.unlock()
        // One call site: the first, then the others.
        for index in -1..<more.count {
            Self.cancel(index < 0 ? first : more[index])
        }
    }

    /// Cancels `exchange` through its own out-of-line code: not optimized, so that no
    /// second copy of `RequestExchange.cancel()` is inlined here (about 350 bytes).
    @_optimize(none)
    private static func cancel(_ exchange: RequestExchange?) {
        exchange?.cancel()
    }

    /// The queue that runs the request, which may lend a slot while it waits (the
    /// token plug-in's slot loan); `nil` when no queue runs it.
    package var lendingQueue: NetworkQueue? {
        lock.lock()
        defer { lock.unlock() }
        return lender
    }

    /// What an operation hands its service when it starts, in one lock: the queue that
    /// lends it a slot, its enqueue time, its task priority (`nil`: the default) and what
    /// runs after a cancellation was delivered.
    func prepare(lender: NetworkQueue?, queuedAt: Date?, priority: Float?, onCancelled body: @escaping @Sendable () -> Void) {
        lock.lock()
        let old = onCancelled
        onCancelled = body
        self.lender = lender
        if let queuedAt { queued = queuedAt }
        if let priority { self.priority = priority }
        lock.unlock()
        withExtendedLifetime(old) {}
    }

    /// On the callback queue, after a cancellation was delivered (see `RequestExchange.deliver`).
    func cancellationDelivered() {
        lock.lock()
        let body = onCancelled
        lock.unlock()
        body?()
    }

    /// Forgets a finished exchange (released after the lock: nothing is freed under it).
    func exchangeFinished(_ finished: RequestExchange) {
        var removed: RequestExchange?
        lock.lock()
        if exchange === finished {
            removed = exchange.take()
        } else {
            var index = moreExchanges.count
            while index > 0 {
                index -= 1
                if moreExchanges[index] === finished {
                    removed = moreExchanges.remove(at: index)
                    break
                }
            }
        }
        lock.unlock()
        withExtendedLifetime(removed) {}
    }
}
