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
    private struct State {
        var cancelled = false
        var exchanges: [ObjectIdentifier: any CancellableExchange] = [:]
        var priority: Float?
        var queuedAt: Date?
        var onCancellationDelivered: (@Sendable () -> Void)?
        /// The queue running this service's operation, which lends it a slot while a
        /// request waits for a token refresh.
        weak var slotLender: NetworkQueue?
    }

    /// The host this service talks to.
    public let configuration: HostConfiguration
    private let state = Protected(State())

    /// Creates a service for `configuration` (the seed's `EasyNetworkService(conf)`).
    public init(_ configuration: HostConfiguration) {
        self.configuration = configuration
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool {
        state.read { $0.cancelled }
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
        perform(request, transform: { response in
            UncheckedSendable(try response.jsonObject())
        }, completion: { result, _ in
            switch result {
            case .success(let json): success?(json.value)
            case .failure(let error): failure?(error)
            }
        })
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
        let (priority, queuedAt) = state.read { ($0.priority, $0.queuedAt) }
        let exchange = RequestExchange(
            service: self,
            request: request,
            priority: priority,
            queuedAt: queuedAt ?? Date(),
            transform: transform,
            uploadProgress: uploadProgress,
            cachedValue: cachedValue,
            completion: completion
        )
        let admitted = state.write { state -> Bool in
            guard !state.cancelled else { return false }
            state.exchanges[ObjectIdentifier(exchange)] = exchange
            return true
        }
        if admitted {
            exchange.start()
        } else {
            exchange.cancel()
        }
    }

    /// Cancels every running request of this service; each reports a cancellation.
    /// Requests made afterwards fail at once as cancelled.
    public func cancel() {
        let exchanges: [any CancellableExchange] = state.write { state in
            state.cancelled = true
            return Array(state.exchanges.values)
        }
        exchanges.forEach { $0.cancel() }
    }

    /// The `URLSessionTask` priority for the next requests (0…1).
    var taskPriority: Float? {
        get { state.read { $0.priority } }
        set { state.write { $0.priority = newValue } }
    }

    /// When the work was handed over (an operation's enqueue time), for metrics.
    var queuedAt: Date? {
        get { state.read { $0.queuedAt } }
        set { state.write { $0.queuedAt = newValue } }
    }

    /// The queue that lends a slot while a request of this service is parked.
    var slotLender: NetworkQueue? {
        get { state.read { $0.slotLender } }
        set { state.write { $0.slotLender = newValue } }
    }

    /// A loan of a slot for one wait of a request (empty when no queue runs it).
    func slotLoan() -> SlotLoan {
        SlotLoan(from: slotLender)
    }

    /// Called on the callback queue right after a cancellation was delivered.
    func onCancellationDelivered(_ body: @escaping @Sendable () -> Void) {
        state.write { $0.onCancellationDelivered = body }
    }

    /// Forgets a finished exchange.
    func exchangeFinished(_ exchange: any CancellableExchange & AnyObject) {
        state.write { _ = $0.exchanges.removeValue(forKey: ObjectIdentifier(exchange)) }
    }

    /// Calls back on `queue`: first the unauthorized notification and the host's
    /// error handler for a failure that is not a cancellation, then `completion`.
    func deliver<Output>(
        _ result: Result<Output, NetworkError>,
        metrics: RequestMetrics,
        on queue: DispatchQueue,
        errorHandler: UncheckedSendable<(NetworkError) -> Void>?,
        completion: @escaping @Sendable (Result<Output, NetworkError>, RequestMetrics) -> Void
    ) {
        let box = UncheckedSendable(result)
        let configuration = configuration
        queue.async { [self] in
            if case .failure(let error) = box.value, !error.isCancelled {
                if error.isUnauthorized {
                    NotificationCenter.default.post(
                        name: HostConfiguration.unauthorizedOperationNotification,
                        object: configuration,
                        userInfo: ["error": error]
                    )
                }
                errorHandler?.value(error)
            }
            completion(box.value, metrics)
            if case .failure(let error) = box.value, error.isCancelled {
                state.read { $0.onCancellationDelivered }?()
            }
        }
    }
}

/// A running request that can be cancelled without knowing its output type.
protocol CancellableExchange: Sendable {
    func cancel()
}
