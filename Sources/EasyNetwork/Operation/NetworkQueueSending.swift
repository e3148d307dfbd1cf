import Foundation

extension NetworkQueue {
    /// Sends a typed request as a ``RequestOperation`` on this queue and calls
    /// `completion` once, on the host's callback queue.
    /// - Returns: the operation, to cancel it or make others depend on it.
    @_alwaysEmitIntoClient @discardableResult
    public func send<Request: APIRequest>(
        _ request: Request,
        configuration: HostConfiguration = .shared,
        completion: @escaping @Sendable (Result<Request.Response, NetworkError>) -> Void
    ) -> RequestOperation<Request.Response> {
        operation(request, configuration, request.responseDecoder, completion)
    }

    /// Sends a typed request on this queue and returns its response. The request runs
    /// as an operation on the queue (its limit and priorities apply); cancelling the
    /// calling task cancels it.
    /// - Throws: ``NetworkError`` (kind `cancelled` when the task was cancelled).
    @_alwaysEmitIntoClient @_semantics("optimize.sil.specialize.generic.never")
    public func send<Request: APIRequest>(
        _ request: Request,
        configuration: HostConfiguration = .shared
    ) async throws -> Request.Response where Request.Response: Sendable {
        try await run(operation(request, configuration, request.responseDecoder, nil))
    }

    /// Sends a request made on the spot and decodes its answer as `type`, as a typed request
    /// whose `Response` is `type` would: a `Decodable` type with the host's `jsonDecoder`
    /// (after its envelope), `Data` the raw body, `String` the body as text. It runs as an
    /// operation on this queue; cancelling the calling task cancels it.
    ///
    /// ```swift
    /// let flags = try await queue.send(.get("/flags", query: ["v": "2"]), as: Flags.self, configuration: host)
    /// ```
    /// - Throws: ``NetworkError`` (kind `cancelled` when the task was cancelled).
    @_alwaysEmitIntoClient @_semantics("optimize.sil.specialize.generic.never")
    public func send<Output: Decodable & Sendable>(
        _ request: AdHocRequest,
        as type: Output.Type,
        configuration: HostConfiguration = .shared
    ) async throws -> Output {
        try await run(operation(request, configuration, .natural, nil))
    }

    /// Sends a request made on the spot whose answer does not matter (any body; an
    /// envelope, if the host has one, is still judged).
    /// - Throws: ``NetworkError`` (kind `cancelled` when the task was cancelled).
    @_alwaysEmitIntoClient
    public func send(_ request: AdHocRequest, configuration: HostConfiguration = .shared) async throws {
        try await run(operation(request, configuration, .void, nil))
    }

    /// ``send(_:as:configuration:)`` with a completion, called once on the host's callback queue.
    /// - Returns: the operation, to cancel it or make others depend on it.
    @_alwaysEmitIntoClient @discardableResult
    public func send<Output: Decodable>(
        _ request: AdHocRequest,
        as type: Output.Type,
        configuration: HostConfiguration = .shared,
        completion: @escaping @Sendable (Result<Output, NetworkError>) -> Void
    ) -> RequestOperation<Output> {
        operation(request, configuration, .natural, completion)
    }

    /// ``send(_:configuration:)->()`` with a completion, called once on the host's callback queue.
    /// - Returns: the operation, to cancel it or make others depend on it.
    @_alwaysEmitIntoClient @discardableResult
    public func send(
        _ request: AdHocRequest,
        configuration: HostConfiguration = .shared,
        completion: @escaping @Sendable (Result<Void, NetworkError>) -> Void
    ) -> RequestOperation<Void> {
        operation(request, configuration, .void, completion)
    }

    /// The operation of every `send`, never specialized (one copy for every `Output`):
    /// with a `completion`, set and added to this queue; without, made to be awaited
    /// (nobody else sees it: a success resumes the task from where it became known).
    @_alwaysEmitIntoClient  // in the caller: the seed sends through its own operations
    internal func operation<Output>(
        _ request: BaseAPIRequest, _ configuration: HostConfiguration, _ decoder: ResponseDecoder<Output>,
        _ completion: (@Sendable (Result<Output, NetworkError>) -> Void)?
    ) -> RequestOperation<Output> {
        let operation = RequestOperation(request: request, configuration: configuration, responseDecoder: decoder)
        if let completion {
            operation.completion = completion
            addOperation(operation)
        } else {
            operation.markAwaitedOnly()
        }
        return operation
    }

    /// Adds `operation` to this queue and returns its result when it has one.
    /// Cancelling the calling task cancels the operation and its request.
    /// - Throws: the operation's ``NetworkError``.
    @_alwaysEmitIntoClient @_semantics("optimize.sil.specialize.generic.never")
    public func run<Output: Sendable>(_ operation: RequestOperation<Output>) async throws -> Output {
        await wait(for: operation, observe: operation.observeDelivery)
        // Delivered: the result is there (a cancellation when the operation never ran).
        return try (operation.result ?? .failure(NetworkError(kind: .cancelled))).get()
    }

    /// Adds any operation (a ``ServiceOperation`` subclass, say) to this queue and
    /// returns when it has finished. Cancelling the calling task cancels the operation.
    /// - Throws: ``NetworkError`` of kind `cancelled` when the operation ended cancelled;
    ///   the failure of an operation that reports one (a `DownloadOperation`'s, from EasyNetworkDownloads).
    @_alwaysEmitIntoClient
    public func run<Op: Operation>(_ operation: Op) async throws {
        await wait(for: operation) { NetworkQueue.whenFinished(operation, $0) }
        try NetworkQueue.check(operation)
    }

    /// Throws how a finished operation ended: cancelled, or the failure it reports. In the
    /// caller, as `run(_:)`: the pipeline never calls it.
    @_alwaysEmitIntoClient
    static func check(_ operation: Operation) throws {
        if operation.isCancelled {
            throw NetworkError(kind: .cancelled)
        }
        if let error = (operation as? any FailureReporting)?.failure {
            throw error
        }
    }

    /// Calls `finished` once `operation` has finished (at once when it has).
    @_alwaysEmitIntoClient
    static func whenFinished(_ operation: Operation, _ finished: @escaping @Sendable () -> Void) {
        if operation.isFinished {
            return finished()
        }
        let previous = operation.completionBlock
        operation.completionBlock = {
            previous?()
            finished()
        }
    }

    /// The one waiting path of `run` and `send`: adds `operation` to this queue and
    /// returns once the callback that `observe` installs was called (it must be called
    /// once). Cancelling the calling task cancels the operation. In the caller: the seed
    /// awaits nothing; a module that awaits has one copy of it.
    @_alwaysEmitIntoClient
    package func wait(for operation: Operation, observe: (@escaping @Sendable () -> Void) -> Void) async {
        await withTaskCancellationHandler {
            // Unchecked: every `observe` here calls its callback exactly once (a delivery,
            // a completion block), which is all a checked continuation would verify.
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                observe { continuation.resume() }
                addOperation(operation)
            }
        } onCancel: {
            operation.cancel()
        }
    }
}
