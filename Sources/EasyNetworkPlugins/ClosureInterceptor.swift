#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `RequestInterceptor` made of closures, for one-off plugins (in this product since 1.0:
/// the core runs interceptors, the interceptors themselves live here):
///
/// ```swift
/// host.interceptors.append(ClosureInterceptor(adapt: { request, _ in
///     var request = request
///     request.setValue(signature(for: request), forHTTPHeaderField: "X-Signature")
///     return request
/// }))
/// ```
public final class ClosureInterceptor: RequestInterceptor {
    private let adaptBody: (@Sendable (URLRequest, RequestContext) throws -> URLRequest)?
    private let willSendBody: (@Sendable (URLRequest, RequestContext) -> Void)?
    private let didReceiveBody: (@Sendable (HTTPURLResponse?, Data, (any Error)?, RequestContext) -> Void)?
    private let validateBody: (@Sendable (NetworkResponse, RequestContext) throws -> Void)?
    private let didFinishBody: (@Sendable (RequestOutcome, RequestContext) -> Void)?
    private let adaptAsyncBody: (@Sendable (URLRequest, RequestContext, @escaping @Sendable (Result<URLRequest, any Error>) -> Void) -> Void)?
    private let retryBody: (@Sendable (NetworkError, RequestContext, @escaping @Sendable (RetryDecision) -> Void) -> Void)?

    /// An interceptor that runs the given closures; leave out what you do not need.
    /// `adaptAsync`, when given, adapts instead of `adapt` and may call its completion
    /// later, from any thread; `retry` decides retries (see
    /// `RequestInterceptor.retry(_:context:completion:)`).
    @inline(never)  // one copy, not another inside the allocating entry
    public init(
        adapt: (@Sendable (URLRequest, RequestContext) throws -> URLRequest)? = nil,
        willSend: (@Sendable (URLRequest, RequestContext) -> Void)? = nil,
        didReceive: (@Sendable (HTTPURLResponse?, Data, (any Error)?, RequestContext) -> Void)? = nil,
        validate: (@Sendable (NetworkResponse, RequestContext) throws -> Void)? = nil,
        didFinish: (@Sendable (RequestOutcome, RequestContext) -> Void)? = nil,
        adaptAsync: (@Sendable (URLRequest, RequestContext, @escaping @Sendable (Result<URLRequest, any Error>) -> Void) -> Void)? = nil,
        retry: (@Sendable (NetworkError, RequestContext, @escaping @Sendable (RetryDecision) -> Void) -> Void)? = nil
    ) {
        adaptBody = adapt
        willSendBody = willSend
        didReceiveBody = didReceive
        validateBody = validate
        didFinishBody = didFinish
        adaptAsyncBody = adaptAsync
        retryBody = retry
    }

    /// Runs the `adapt` closure, if any.
    public func adapt(_ urlRequest: URLRequest, context: RequestContext) throws -> URLRequest {
        try adaptBody?(urlRequest, context) ?? urlRequest
    }

    /// Runs the `adaptAsync` closure if given, else the `adapt` closure.
    public func adapt(_ urlRequest: URLRequest, context: RequestContext, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        guard let adaptAsyncBody else {
            do {
                completion(.success(try adapt(urlRequest, context: context)))
            } catch {
                completion(.failure(error))
            }
            return
        }
        adaptAsyncBody(urlRequest, context, completion)
    }

    /// Runs the `willSend` closure, if any.
    public func willSend(_ urlRequest: URLRequest, context: RequestContext) {
        willSendBody?(urlRequest, context)
    }

    /// Runs the `didReceive` closure, if any.
    public func didReceive(_ response: HTTPURLResponse?, data: Data, error: (any Error)?, context: RequestContext) {
        didReceiveBody?(response, data, error, context)
    }

    /// Runs the `validate` closure, if any.
    public func validate(_ response: NetworkResponse, context: RequestContext) throws {
        try validateBody?(response, context)
    }

    /// Runs the `retry` closure if given; passes otherwise.
    public func retry(_ error: NetworkError, context: RequestContext, completion: @escaping @Sendable (RetryDecision) -> Void) {
        guard let retryBody else {
            completion(.pass)
            return
        }
        retryBody(error, context, completion)
    }

    /// Runs the `didFinish` closure, if any.
    public func didFinish(_ outcome: RequestOutcome, context: RequestContext) {
        didFinishBody?(outcome, context)
    }
}
