import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``RequestInterceptor`` made of closures, for one-off plugins:
///
/// ```swift
/// host.interceptors.append(ClosureInterceptor(adapt: { request, _ in
///     var request = request
///     request.setValue(signature(for: request), forHTTPHeaderField: "X-Signature")
///     return request
/// }))
/// ```
public struct ClosureInterceptor: RequestInterceptor {
    private let adaptBody: (@Sendable (URLRequest, RequestContext) throws -> URLRequest)?
    private let willSendBody: (@Sendable (URLRequest, RequestContext) -> Void)?
    private let didReceiveBody: (@Sendable (HTTPURLResponse?, Data, (any Error)?, RequestContext) -> Void)?
    private let validateBody: (@Sendable (NetworkResponse, RequestContext) throws -> Void)?
    private let didFinishBody: (@Sendable (RequestOutcome, RequestContext) -> Void)?

    /// An interceptor that runs the given closures; leave out what you do not need.
    public init(
        adapt: (@Sendable (URLRequest, RequestContext) throws -> URLRequest)? = nil,
        willSend: (@Sendable (URLRequest, RequestContext) -> Void)? = nil,
        didReceive: (@Sendable (HTTPURLResponse?, Data, (any Error)?, RequestContext) -> Void)? = nil,
        validate: (@Sendable (NetworkResponse, RequestContext) throws -> Void)? = nil,
        didFinish: (@Sendable (RequestOutcome, RequestContext) -> Void)? = nil
    ) {
        adaptBody = adapt
        willSendBody = willSend
        didReceiveBody = didReceive
        validateBody = validate
        didFinishBody = didFinish
    }

    /// Runs the `adapt` closure, if any.
    public func adapt(_ urlRequest: URLRequest, context: RequestContext) throws -> URLRequest {
        try adaptBody?(urlRequest, context) ?? urlRequest
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

    /// Runs the `didFinish` closure, if any.
    public func didFinish(_ outcome: RequestOutcome, context: RequestContext) {
        didFinishBody?(outcome, context)
    }
}
