import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends ``BaseAPIRequest``s to one host and calls back exactly once per request.
///
/// It builds the URL (the `api` path appended to the base URL's path), merges headers,
/// encodes parameters, runs the request on the host's session, checks the status
/// code and decodes the body, then calls back on the host's `callbackQueue`.
/// A 401 also posts ``HostConfiguration/didPerformUnauthorizedOperation``.
///
/// A ``ServiceOperation`` owns one service. ``cancel()`` cancels every request it
/// is running and is sticky: requests made afterwards fail at once as cancelled.
public final class EasyNetworkService: @unchecked Sendable {
    private struct State {
        var cancelled = false
        var nextID = 0
        var tasks: [Int: TransportTask] = [:]
        var priority: Float?
        var onCancellationDelivered: (@Sendable () -> Void)?
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
    ///   - success: the body decoded by `JSONSerialization` (a dictionary, an array or
    ///     a fragment), or `nil` for an empty body (HEAD, 204).
    ///   - failure: a ``NetworkError``: bad request, encoding, transport, status,
    ///     a body that is not JSON, or cancellation.
    public func request(
        _ request: BaseAPIRequest,
        success: (@Sendable (Any?) -> Void)? = nil,
        failure: (@Sendable (NetworkError) -> Void)? = nil
    ) {
        perform(request, transform: { response in
            UncheckedSendable(try response.jsonObject())
        }, completion: { result in
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
        let builder = URLRequestBuilder(configuration: configuration)
        let settings = builder.settings
        let handler = request.suppressesErrorHandler ? nil : settings.errorHandler.map { handler in
            UncheckedSendable { (error: NetworkError) in handler(request, error) }
        }
        let delivery = Delivery(queue: settings.callbackQueue, errorHandler: handler)
        let urlRequest: URLRequest
        switch builder.build(request) {
        case .success(let built):
            urlRequest = built
        case .failure(let error):
            deliver(.failure(error), via: delivery, completion: completion)
            return
        }
        let (id, priority): (Int?, Float?) = state.write { state in
            if state.cancelled { return (nil, nil) }
            state.nextID += 1
            return (state.nextID, state.priority)
        }
        guard let id else {
            deliver(.failure(.cancelled(url: urlRequest.url)), via: delivery, completion: completion)
            return
        }
        let context = ResponseContext(settings: settings)
        let task = configuration.transport.dataTask(with: urlRequest, priority: priority) { [self] outcome in
            state.write { _ = $0.tasks.removeValue(forKey: id) }
            let cancelled = state.read { $0.cancelled }
            let result = Self.classify(outcome, cancelled: cancelled, context: context).flatMap { response in
                Result { try transform(response) }.mapError { NetworkError.decoding($0, response: response) }
            }
            deliver(result, via: delivery, completion: completion)
        }
        guard let task else { return }
        let stillWanted = state.write { state -> Bool in
            if state.cancelled { return false }
            state.tasks[id] = task
            return true
        }
        if !stillWanted {
            task.cancel()
        }
    }

    /// Cancels every running request of this service; each reports a cancellation.
    /// Requests made afterwards fail at once as cancelled.
    public func cancel() {
        let tasks: [TransportTask] = state.write { state in
            state.cancelled = true
            defer { state.tasks.removeAll() }
            return Array(state.tasks.values)
        }
        tasks.forEach { $0.cancel() }
    }

    /// The `URLSessionTask` priority for the next requests (0…1).
    var taskPriority: Float? {
        get { state.read { $0.priority } }
        set { state.write { $0.priority = newValue } }
    }

    /// Called on the callback queue right after a cancellation was delivered.
    func onCancellationDelivered(_ body: @escaping @Sendable () -> Void) {
        state.write { $0.onCancellationDelivered = body }
    }

    /// Where and to whom a result goes.
    private struct Delivery: Sendable {
        let queue: DispatchQueue
        let errorHandler: UncheckedSendable<(NetworkError) -> Void>?
    }

    /// What decoding a response needs from the host, captured when the request starts.
    struct ResponseContext: @unchecked Sendable {
        let acceptableStatusCodes: Set<Int>
        let envelope: ResponseEnvelope?
        let jsonDecoder: JSONDecoder

        init(settings: HostConfiguration.Settings) {
            acceptableStatusCodes = settings.acceptableStatusCodes
            envelope = settings.envelope
            jsonDecoder = settings.jsonDecoder
        }
    }

    /// Calls back on the host's queue: first the unauthorized notification and the
    /// host's error handler for a failure that is not a cancellation, then `completion`.
    private func deliver<Output>(
        _ result: Result<Output, NetworkError>,
        via delivery: Delivery,
        completion: @escaping @Sendable (Result<Output, NetworkError>) -> Void
    ) {
        let box = UncheckedSendable(result)
        let configuration = configuration
        delivery.queue.async { [self] in
            if case .failure(let error) = box.value, !error.isCancelled {
                if error.isUnauthorized {
                    NotificationCenter.default.post(
                        name: HostConfiguration.didPerformUnauthorizedOperation,
                        object: configuration,
                        userInfo: ["error": error]
                    )
                }
                delivery.errorHandler?.value(error)
            }
            completion(box.value)
            if case .failure(let error) = box.value, error.isCancelled {
                state.read { $0.onCancellationDelivered }?()
            }
        }
    }

    /// Sorts a transport outcome into a response worth decoding or an error.
    /// A challenged 401 arrives as its response even when the caller cancelled
    /// meanwhile; `cancelled` makes that a cancellation.
    static func classify(_ outcome: TransportOutcome, cancelled: Bool, context: ResponseContext) -> Result<NetworkResponse, NetworkError> {
        let url = outcome.request.url
        if cancelled, outcome.error != nil || outcome.response == nil {
            return .failure(.cancelled(url: url))
        }
        if let error = outcome.error {
            if (error as? URLError)?.code == .cancelled {
                return .failure(.cancelled(url: url))
            }
            return .failure(.transport(error, url: url))
        }
        guard let response = outcome.response else {
            return .failure(.transport(URLError(.badServerResponse), url: url))
        }
        guard context.acceptableStatusCodes.contains(response.statusCode) else {
            return .failure(NetworkError(
                kind: .unacceptableStatus,
                message: ServerMessage.extract(from: outcome.data),
                url: url,
                response: response,
                data: outcome.data
            ))
        }
        return .success(NetworkResponse(
            request: outcome.request,
            httpResponse: response,
            data: outcome.data,
            envelope: context.envelope,
            jsonDecoder: context.jsonDecoder
        ))
    }
}
