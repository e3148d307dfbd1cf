import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A plugin on a request's way out and back: adapt the `URLRequest`, observe sending
/// and receiving, validate the response, decide a retry, observe the outcome. Every
/// method has a default that does nothing, so implement only what you need.
///
/// Interceptors run per host (``HostConfiguration/interceptors``) and per request
/// (``BaseAPIRequest/interceptors``): the host's first, then the request's, each list
/// in order, for every step. `adapt`, `willSend`, `didReceive`, `validate` and `retry`
/// run for every attempt; `didFinish` once per request.
public protocol RequestInterceptor: Sendable {
    /// Returns the request to send: add a header, sign or encrypt the body.
    /// Throwing fails the request with that error (a ``NetworkError`` as is, anything
    /// else as `invalidRequest`), without sending it.
    func adapt(_ urlRequest: URLRequest, context: RequestContext) throws -> URLRequest
    /// The asynchronous form of `adapt`, for an adapter that must wait (for a token,
    /// a signature service): call `completion` once, from any thread, with the request
    /// to send or the error that fails it (mapped as for the throwing form). The
    /// default runs the throwing `adapt`. Cancelling the request while it waits ends
    /// it at once; a later completion is ignored.
    func adapt(_ urlRequest: URLRequest, context: RequestContext, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void)
    /// Called right before the request goes to the network.
    func willSend(_ urlRequest: URLRequest, context: RequestContext)
    /// Called when the transport is done with an attempt: a response with its body,
    /// or an error.
    func didReceive(_ response: HTTPURLResponse?, data: Data, error: (any Error)?, context: RequestContext)
    /// Judges a response the host accepted (status code and envelope not yet decoded):
    /// throwing turns it into a failure (a ``NetworkError`` as is, anything else as
    /// `unacceptableStatus` with the response).
    func validate(_ response: NetworkResponse, context: RequestContext) throws
    /// Decides whether a failed attempt is sent again: call `completion` once, from any
    /// thread, with ``RetryDecision/pass`` (let the next interceptor decide; the
    /// default), ``RetryDecision/retry(after:)`` or ``RetryDecision/fail(_:)``.
    /// Interceptors are asked in order and the first answer that is not `.pass` wins;
    /// the request's retry policy is asked last. Cancellations are never offered.
    func retry(_ error: NetworkError, context: RequestContext, completion: @escaping @Sendable (RetryDecision) -> Void)
    /// Called once when the request has its final outcome, before the callback.
    func didFinish(_ outcome: RequestOutcome, context: RequestContext)
}

extension RequestInterceptor {
    /// Sends the request unchanged.
    @_alwaysEmitIntoClient
    public func adapt(_ urlRequest: URLRequest, context: RequestContext) throws -> URLRequest { urlRequest }
    /// Runs the throwing `adapt` and hands its result to `completion`.
    @_alwaysEmitIntoClient
    public func adapt(_ urlRequest: URLRequest, context: RequestContext, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        completion(Result { try adapt(urlRequest, context: context) })
    }
    /// Does nothing.
    @_alwaysEmitIntoClient
    public func willSend(_ urlRequest: URLRequest, context: RequestContext) {}
    /// Does nothing.
    @_alwaysEmitIntoClient
    public func didReceive(_ response: HTTPURLResponse?, data: Data, error: (any Error)?, context: RequestContext) {}
    /// Accepts every response.
    @_alwaysEmitIntoClient
    public func validate(_ response: NetworkResponse, context: RequestContext) throws {}
    /// Lets the next interceptor (or the retry policy) decide.
    @_alwaysEmitIntoClient
    public func retry(_ error: NetworkError, context: RequestContext, completion: @escaping @Sendable (RetryDecision) -> Void) {
        completion(.pass)
    }
    /// Does nothing.
    @_alwaysEmitIntoClient
    public func didFinish(_ outcome: RequestOutcome, context: RequestContext) {}
}
