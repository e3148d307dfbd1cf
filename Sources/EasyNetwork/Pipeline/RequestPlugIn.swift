import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request's part of an optional feature of its host (the token, the cache,
/// coalescing, retries): the seam through which a feature joins the pipeline without the
/// exchange naming it. The host's features make them per request, in their order
/// (``HostFeature/plugIn(for:settings:service:)``, asked by ``RequestExchange``); every hook has a
/// default that does nothing. Hooks that answer or send an attempt see only requests
/// without a body file.
@usableFromInline
package protocol RequestPlugIn: AnyObject, Sendable {
    /// An interceptor that adapts and decides retries ahead of the host's (the token).
    var interceptor: (any RequestInterceptor)? { get }
    /// Who the request was last sent for (the token), for keys.
    var credential: String? { get }
    /// Decides a retry after every interceptor passed (the retry engine, with the request's
    /// or the host's `RetryPolicy`). A request whose own policy retries needs one: without
    /// it the request fails before anything is sent (see ``RequestExchange``).
    var retrier: (any RequestInterceptor)? { get }
    /// Before each attempt, the first too, before it is adapted: `nil` lets it go; an error
    /// ends the request with it, nothing sent (the retry engine: a paused host, an open
    /// circuit breaker). `url` is the built request's.
    func admit(attempt: Int, url: URL?) -> NetworkError?
    /// Before the first attempt, with the request as it will be sent: whether a stored
    /// answer ends the request (mapped into `sink`); may add headers.
    func answers(_ request: inout URLRequest, credential: String?, sink: any ExchangeSink, lock: Lock, queue: DispatchQueue) -> Bool
    /// Sends an attempt: itself (a shared transfer) or through `next` (the next
    /// plug-in, at the end the host's session).
    func send(
        _ request: URLRequest,
        activity: any TransferActivity,
        next: (URLRequest, any TransferActivity, @escaping @Sendable (TransportOutcome) -> Void) -> TransportTask?,
        arrived: @escaping @Sendable (TransportOutcome) -> Void
    ) -> TransportTask?
    /// What an attempt produced, before it is validated (a `304` may become the stored response).
    func received(_ outcome: inout TransportOutcome)
    /// A response that passed validation and mapped.
    func didMap(_ response: NetworkResponse, credential: String?)
    /// The request ended, however.
    func end()
}

extension RequestPlugIn {
    // Emitted into the products whose plug-ins take them as witnesses: the core has no plug-in.
    @_alwaysEmitIntoClient package var interceptor: (any RequestInterceptor)? { nil }
    @_alwaysEmitIntoClient package var credential: String? { nil }
    @_alwaysEmitIntoClient package var retrier: (any RequestInterceptor)? { nil }
    @_alwaysEmitIntoClient package func admit(attempt: Int, url: URL?) -> NetworkError? { nil }
    @_alwaysEmitIntoClient package func answers(_ request: inout URLRequest, credential: String?, sink: any ExchangeSink, lock: Lock, queue: DispatchQueue) -> Bool { false }
    @_alwaysEmitIntoClient package func send(
        _ request: URLRequest,
        activity: any TransferActivity,
        next: (URLRequest, any TransferActivity, @escaping @Sendable (TransportOutcome) -> Void) -> TransportTask?,
        arrived: @escaping @Sendable (TransportOutcome) -> Void
    ) -> TransportTask? {
        next(request, activity, arrived)
    }
    @_alwaysEmitIntoClient package func received(_ outcome: inout TransportOutcome) {}
    @_alwaysEmitIntoClient package func didMap(_ response: NetworkResponse, credential: String?) {}
    @_alwaysEmitIntoClient package func end() {}
}

extension Array where Element == any RequestPlugIn {
    /// The first credential a plug-in knows.
    package var credential: String? {
        for plugIn in self {
            if let credential = plugIn.credential { return credential }
        }
        return nil
    }
}
