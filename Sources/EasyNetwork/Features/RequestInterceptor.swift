import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A plugin on a request's way out and back: adapt the `URLRequest`, observe sending
/// and receiving, validate the response, observe the outcome. Every method has a
/// default that does nothing, so implement only what you need.
///
/// Interceptors run per host (``HostConfiguration/interceptors``) and per request
/// (``BaseAPIRequest/interceptors``): the host's first, then the request's, each list
/// in order, for every step. `adapt`, `willSend`, `didReceive` and `validate` run for
/// every attempt; `didFinish` once per request.
public protocol RequestInterceptor: Sendable {
    /// Returns the request to send: add a header, sign or encrypt the body.
    /// Throwing fails the request with that error (a ``NetworkError`` as is, anything
    /// else as `invalidRequest`), without sending it.
    func adapt(_ urlRequest: URLRequest, context: RequestContext) throws -> URLRequest
    /// Called right before the request goes to the network.
    func willSend(_ urlRequest: URLRequest, context: RequestContext)
    /// Called when the transport is done with an attempt: a response with its body,
    /// or an error.
    func didReceive(_ response: HTTPURLResponse?, data: Data, error: (any Error)?, context: RequestContext)
    /// Judges a response the host accepted (status code and envelope not yet decoded):
    /// throwing turns it into a failure (a ``NetworkError`` as is, anything else as
    /// `unacceptableStatus` with the response).
    func validate(_ response: NetworkResponse, context: RequestContext) throws
    /// Called once when the request has its final outcome, before the callback.
    func didFinish(_ outcome: RequestOutcome, context: RequestContext)
}

extension RequestInterceptor {
    /// Sends the request unchanged.
    public func adapt(_ urlRequest: URLRequest, context: RequestContext) throws -> URLRequest { urlRequest }
    /// Does nothing.
    public func willSend(_ urlRequest: URLRequest, context: RequestContext) {}
    /// Does nothing.
    public func didReceive(_ response: HTTPURLResponse?, data: Data, error: (any Error)?, context: RequestContext) {}
    /// Accepts every response.
    public func validate(_ response: NetworkResponse, context: RequestContext) throws {}
    /// Does nothing.
    public func didFinish(_ outcome: RequestOutcome, context: RequestContext) {}
}

extension Array where Element == any RequestInterceptor {
    /// `urlRequest` after every interceptor's `adapt`, in order; a refusal becomes the
    /// request's failure (a ``NetworkError`` as is, anything else as `invalidRequest`).
    func adapt(_ urlRequest: URLRequest, context: RequestContext) -> Result<URLRequest, NetworkError> {
        var urlRequest = urlRequest
        do {
            for interceptor in self {
                urlRequest = try interceptor.adapt(urlRequest, context: context)
            }
            return .success(urlRequest)
        } catch let error as NetworkError {
            return .failure(error)
        } catch {
            return .failure(NetworkError(kind: .invalidRequest, message: "an interceptor refused the request: \(error.localizedDescription)", url: urlRequest.url, underlyingError: error))
        }
    }
}
