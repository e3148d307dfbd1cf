import Foundation

extension NetworkQueue {
    /// Sends a typed request as a ``RequestOperation`` on this queue and calls
    /// `completion` once, on the host's callback queue.
    /// - Returns: the operation, to cancel it or make others depend on it.
    @discardableResult
    public func send<Request: APIRequest>(
        _ request: Request,
        configuration: HostConfiguration = .shared,
        completion: @escaping @Sendable (Result<Request.Response, NetworkError>) -> Void
    ) -> RequestOperation<Request.Response> {
        let operation = RequestOperation(request: request, configuration: configuration, responseDecoder: request.responseDecoder)
        operation.completion = completion
        addOperation(operation)
        return operation
    }

    /// Sends a typed request on this queue and returns its response. The request runs
    /// as an operation on the queue (its limit and priorities apply); cancelling the
    /// calling task cancels it.
    /// - Throws: ``NetworkError`` (kind `cancelled` when the task was cancelled).
    public func send<Request: APIRequest>(
        _ request: Request,
        configuration: HostConfiguration = .shared
    ) async throws -> Request.Response where Request.Response: Sendable {
        let operation = RequestOperation(request: request, configuration: configuration, responseDecoder: request.responseDecoder)
        // Nobody else sees it: a success resumes the task from where it became known.
        operation.markAwaitedOnly()
        return try await run(operation)
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
    public func send<Output: Decodable & Sendable>(
        _ request: AdHocRequest,
        as type: Output.Type,
        configuration: HostConfiguration = .shared
    ) async throws -> Output {
        try await awaitAdHoc(request, configuration, .natural)
    }

    /// Sends a request made on the spot whose answer does not matter (any body; an
    /// envelope, if the host has one, is still judged).
    /// - Throws: ``NetworkError`` (kind `cancelled` when the task was cancelled).
    public func send(_ request: AdHocRequest, configuration: HostConfiguration = .shared) async throws {
        try await awaitAdHoc(request, configuration, .void)
    }

    /// ``send(_:as:configuration:)`` with a completion, called once on the host's callback queue.
    /// - Returns: the operation, to cancel it or make others depend on it.
    @discardableResult
    public func send<Output: Decodable>(
        _ request: AdHocRequest,
        as type: Output.Type,
        configuration: HostConfiguration = .shared,
        completion: @escaping @Sendable (Result<Output, NetworkError>) -> Void
    ) -> RequestOperation<Output> {
        adHoc(request, configuration, .natural, completion)
    }

    /// ``send(_:configuration:)->()`` with a completion, called once on the host's callback queue.
    /// - Returns: the operation, to cancel it or make others depend on it.
    @discardableResult
    public func send(
        _ request: AdHocRequest,
        configuration: HostConfiguration = .shared,
        completion: @escaping @Sendable (Result<Void, NetworkError>) -> Void
    ) -> RequestOperation<Void> {
        adHoc(request, configuration, .void, completion)
    }

    // The ad-hoc sends share these two, never specialized: a `Void` send would otherwise
    // compile its own copies of the operation's generic code (about 1 KB).

    /// Adds the operation of an ad-hoc request, `completion` set, and returns it.
    @_semantics("optimize.sil.specialize.generic.never")
    private func adHoc<Output>(
        _ request: AdHocRequest, _ configuration: HostConfiguration, _ decoder: ResponseDecoder<Output>,
        _ completion: @escaping @Sendable (Result<Output, NetworkError>) -> Void
    ) -> RequestOperation<Output> {
        let operation = RequestOperation(request: request, configuration: configuration, responseDecoder: decoder)
        operation.completion = completion
        addOperation(operation)
        return operation
    }

    /// Runs the operation of an ad-hoc request and returns its result.
    @_semantics("optimize.sil.specialize.generic.never")
    private func awaitAdHoc<Output: Sendable>(
        _ request: AdHocRequest, _ configuration: HostConfiguration, _ decoder: ResponseDecoder<Output>
    ) async throws -> Output {
        let operation = RequestOperation(request: request, configuration: configuration, responseDecoder: decoder)
        // Nobody else sees it: a success resumes the task from where it became known.
        operation.markAwaitedOnly()
        return try await run(operation)
    }

    /// Adds `operation` to this queue and returns its result when it has one.
    /// Cancelling the calling task cancels the operation and its request.
    /// - Throws: the operation's ``NetworkError``.
    public func run<Output: Sendable>(_ operation: RequestOperation<Output>) async throws -> Output {
        await wait(for: operation, observe: operation.observeDelivery)
        // Delivered: the result is there (a cancellation when the operation never ran).
        return try (operation.result ?? .failure(.cancelled(url: nil))).get()
    }

    /// Adds any operation (a ``ServiceOperation`` subclass, say) to this queue and
    /// returns when it has finished. Cancelling the calling task cancels the operation.
    /// - Throws: ``NetworkError`` of kind `cancelled` when the operation ended cancelled;
    ///   the failure of an operation that reports one (a `DownloadOperation`'s, from EasyNetworkDownloads).
    public func run<Op: Operation>(_ operation: Op) async throws {
        try await runToFinish(operation)
    }

    /// ``run(_:)`` for any operation, without a type parameter.
    private func runToFinish(_ operation: Operation) async throws {
        if !operation.isFinished {
            await wait(for: operation) { finished in
                let previous = operation.completionBlock
                operation.completionBlock = {
                    previous?()
                    finished()
                }
            }
        }
        if operation.isCancelled {
            throw NetworkError(kind: .cancelled)
        }
        if let error = (operation as? any FailureReporting)?.failure {
            throw error
        }
    }

    /// The one waiting path of `run` and `send`: adds `operation` to this queue and
    /// returns once the callback that `observe` installs was called (it must be called
    /// once). Cancelling the calling task cancels the operation. Never inlined: one copy
    /// of the cancellation handler and the continuation serves every caller.
    @inline(never)
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
