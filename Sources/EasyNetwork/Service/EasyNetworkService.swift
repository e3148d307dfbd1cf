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
    // unchecked: every `var` is read and written only under `lock`.
    /// The host this service talks to.
    public let configuration: HostConfiguration
    private let lock = Lock()
    private var cancelled = false
    /// The requests running; usually one (an operation's).
    private var exchanges: [RequestExchange] = []
    private var priority: Float?
    private var queued: Date?
    private var onCancelled: (@Sendable () -> Void)?
    /// The queue running this service's operation, which lends it a slot while a
    /// request waits for a token refresh.
    private weak var lender: NetworkQueue?

    /// Creates a service for `configuration` (the seed's `EasyNetworkService(conf)`).
    public init(_ configuration: HostConfiguration) {
        self.configuration = configuration
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
        // The library's own small JSON parse: it may run on the delegate queue.
        let sink = TypedSink(transform: { try $0.jsonObject() }, cachedValue: nil, mapsInline: true) { (result: Result<Any?, NetworkError>, _) in
            switch result {
            case .success(let json): success?(json)
            case .failure(let error): failure?(error)
            }
        }
        start(request, sink: sink, uploadProgress: nil)
    }

    /// Sends `request`, runs `transform` on the successful response off the callback
    /// queue, and calls `completion` exactly once on the host's callback queue.
    ///
    /// An error thrown by `transform` arrives as a ``NetworkError`` of kind
    /// ``NetworkError/Kind-swift.enum/decoding`` (a thrown `NetworkError` is passed on as is).
    public func perform<Output>(
        _ request: BaseAPIRequest,
        transform: @escaping @Sendable (NetworkResponse) throws -> Output,
        completion: @escaping @Sendable (Result<Output, NetworkError>) -> Void
    ) {
        perform(request, transform: transform) { result, _ in completion(result) }
    }

    /// ``perform(_:transform:completion:)`` that also hands over the request's metrics
    /// and reports upload progress (bytes sent, bytes to send) from the session's queue.
    func perform<Output>(
        _ request: BaseAPIRequest,
        transform: @escaping @Sendable (NetworkResponse) throws -> Output,
        uploadProgress: (@Sendable (Int64, Int64) -> Void)? = nil,
        cachedValue: (@Sendable (Output) -> Void)? = nil,
        completion: @escaping @Sendable (Result<Output, NetworkError>, RequestMetrics) -> Void
    ) {
        start(request, sink: TypedSink(transform: transform, cachedValue: cachedValue, completion: completion), uploadProgress: uploadProgress)
    }

    /// The non-generic part of `perform`; `transfer` carries the attempts of a download
    /// (see ``RequestExchange``).
    package func start(_ request: BaseAPIRequest, sink: any ExchangeSink, uploadProgress: (@Sendable (Int64, Int64) -> Void)?, transfer: (any RequestPlugIn)? = nil) {
        lock.lock()
        let (priority, queuedAt) = (priority, queued)
        lock.unlock()
        let exchange = RequestExchange(service: self, request: request, sink: sink, priority: priority, queuedAt: queuedAt ?? Date(), uploadProgress: uploadProgress, transfer: transfer)
        lock.lock()
        let admitted = !cancelled
        if admitted { exchanges.append(exchange) }
        lock.unlock()
        if admitted {
            exchange.start()
        } else {
            exchange.cancel()
        }
    }

    /// Cancels every running request of this service; each reports a cancellation.
    /// Requests made afterwards fail at once as cancelled.
    public func cancel() {
        lock.lock()
        cancelled = true
        let running = exchanges
        lock.unlock()
        running.forEach { $0.cancel() }
    }

    /// The `URLSessionTask` priority for the next requests (0…1).
    var taskPriority: Float? {
        get { lock.lock(); defer { lock.unlock() }; return priority }
        set { lock.lock(); priority = newValue; lock.unlock() }
    }

    /// When the work was handed over (an operation's enqueue time), for metrics.
    var queuedAt: Date? {
        get { lock.lock(); defer { lock.unlock() }; return queued }
        set { lock.lock(); queued = newValue; lock.unlock() }
    }

    /// The queue that lends a slot while a request of this service is parked.
    var slotLender: NetworkQueue? {
        get { lock.lock(); defer { lock.unlock() }; return lender }
        set { lock.lock(); lender = newValue; lock.unlock() }
    }

    /// A loan of a slot for one wait of a request (empty when no queue runs it).
    package func slotLoan() -> SlotLoan {
        SlotLoan(from: slotLender)
    }

    /// Called on the callback queue right after a cancellation was delivered.
    func onCancellationDelivered(_ body: @escaping @Sendable () -> Void) {
        lock.lock()
        onCancelled = body
        lock.unlock()
    }

    /// On the callback queue, after a cancellation was delivered (see ``DeliverStage``).
    func cancellationDelivered() {
        lock.lock()
        let body = onCancelled
        lock.unlock()
        body?()
    }

    /// Forgets a finished exchange.
    func exchangeFinished(_ exchange: RequestExchange) {
        lock.lock()
        if let index = exchanges.firstIndex(where: { $0 === exchange }) {
            exchanges.remove(at: index)
        }
        lock.unlock()
    }
}
