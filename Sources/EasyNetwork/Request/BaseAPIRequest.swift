import Foundation

/// What to send: one endpoint of your backend, described as a value.
///
/// Conform a type to it (a class or a struct). ``api`` is the one member without a
/// default: a type that gives nothing else is a `GET` of that path with no parameters
/// and no headers of its own. Every other member has a default, the same as
/// ``APIRequest``'s: ``method`` `.get`, ``query`` `.path`, ``params`` and ``headers``
/// `nil`, and `timeout`, `absoluteURL`, `retryPolicy`, `multipartBody`, … as documented on
/// each.
///
/// ```swift
/// final class SignInRequest: BaseAPIRequest {
///     var method: NetworkService.Method { .post }
///     var query: NetworkService.QueryType { .json }
///     var params: [String: Any]? { ["username": "u", "password": "p"] }
///     var api: String { "/sign_in" }
///     var headers: [String: String]? { defaultJsonHeader() }
/// }
/// ```
///
/// A member whose type differs from the requirement (`[String: AnyObject]?` for
/// ``params``, say) does not replace the default: it is a separate property the library
/// never reads. Give each member exactly the type shown here.
public protocol BaseAPIRequest {
    /// The path of the endpoint (the one required member), appended to the host's base URL path
    /// (`https://h/v1` + `/users` → `https://h/v1/users`). It may carry its own
    /// query (`/users?active=1`); `params` are added after it.
    var api: String { get }
    /// The HTTP method.
    var method: NetworkService.Method { get }
    /// Where `params` go: JSON body, URL query or form body.
    var query: NetworkService.QueryType { get }
    /// The parameters, or `nil` for none.
    var params: [String: Any]? { get }
    /// Headers for this request. They win over the host's default headers; names
    /// are compared case-insensitively.
    var headers: [String: String]? { get }
    /// A timeout for this request in seconds, or `nil` (the default) for the host's.
    /// It is an idle timeout, as `URLRequest.timeoutInterval` on Apple platforms: an
    /// attempt fails only when no byte was sent or received for that long.
    var timeout: TimeInterval? { get }
    /// The most seconds one attempt may take however steadily bytes move, or `nil`
    /// (the default) for the host's ``HostConfiguration/totalTimeout``.
    var totalTimeout: TimeInterval? { get }
    /// A full URL that replaces base URL + `api`, or `nil` (the default).
    /// Such a request works even when the host has no base URL.
    var absoluteURL: URL? { get }
    /// A value sent as the JSON body, encoded with the host's `jsonEncoder` (dates as
    /// ISO 8601 text unless you gave the host another encoder), or `nil` (the default).
    /// When set, `params` go into the URL query.
    var encodableBody: (any Encodable)? { get }
    /// `true` keeps this request's failures away from the host's `errorHandler`
    /// (for a request whose failure is expected, such as a silent token check).
    /// Default `false`.
    var suppressesErrorHandler: Bool { get }
    /// Interceptors for this request only, run after the host's. Default none.
    var interceptors: [any RequestInterceptor] { get }
    /// A retry policy for this request instead of the host's, or `nil` (the default).
    /// Its host needs the retry engine of `EasyNetworkRetry` (`host.retryPolicy`): a policy
    /// that retries on a host without it fails the request before anything is sent.
    var retryPolicy: RetryPolicy? { get }
    /// `false` sends this request without the host's token and never refreshes for it
    /// (the sign-in request itself). Default `true`.
    var requiresAuthentication: Bool { get }
    /// `true` lets this GET or HEAD share one network request with identical ones in
    /// flight, `false` never, `nil` (the default) follows the host's `coalescesRequests`.
    /// Coalescing needs the feature installed on the host: set `host.coalescesRequests`
    /// (to `false` to let only requests that ask coalesce; `EasyNetworkOrchestration`).
    /// On a host where it was never set, `true` does nothing.
    var coalescesIdenticalRequests: Bool? { get }
    /// A `multipart/form-data` body (fields and files), or `nil` (the default). Its parts
    /// are added with the `append` methods of `EasyNetworkUploads` (`import
    /// EasyNetworkUploads`), which also writes the body: a form without a part from it
    /// fails the request before anything is sent, with
    /// ``NetworkError/Kind-swift.enum/invalidRequest`` naming that product. When set,
    /// `params` become text fields ahead of its parts, and the body is streamed from a
    /// temporary file. Read once per request: a computed property that builds a new form
    /// (with a new random boundary) on every read is fine.
    var multipartBody: MultipartFormData? { get }
    /// How this request uses the host's response cache (`EasyNetworkCache`), or `nil` (the default) for
    /// the host's ``HostConfiguration/cachePolicy``.
    var cachePolicy: CachePolicy? { get }
}

extension BaseAPIRequest {
    // The defaults are compiled into each conforming type's witnesses (the core holds no
    // copy of its own): the pipeline reads them only through a conformance.

    /// `GET`, as ``APIRequest``'s default.
    @_alwaysEmitIntoClient
    public var method: NetworkService.Method { .get }

    /// `.path`: ``params`` go into the URL query.
    @_alwaysEmitIntoClient
    public var query: NetworkService.QueryType { .path }

    /// No parameters.
    @_alwaysEmitIntoClient
    public var params: [String: Any]? { nil }

    /// No headers of its own: the host's default headers only.
    @_alwaysEmitIntoClient
    public var headers: [String: String]? { nil }

    /// `nil`: use the host's timeout.
    @_alwaysEmitIntoClient
    public var timeout: TimeInterval? { nil }

    /// `nil`: use the host's total timeout.
    @_alwaysEmitIntoClient
    public var totalTimeout: TimeInterval? { nil }

    /// `nil`: use the host's base URL and ``api``.
    @_alwaysEmitIntoClient
    public var absoluteURL: URL? { nil }

    /// `nil`: the body comes from `params`.
    @_alwaysEmitIntoClient
    public var encodableBody: (any Encodable)? { nil }

    /// `false`: failures reach the host's error handler.
    @_alwaysEmitIntoClient
    public var suppressesErrorHandler: Bool { false }

    /// None: only the host's interceptors run.
    @_alwaysEmitIntoClient
    public var interceptors: [any RequestInterceptor] { [] }

    /// `nil`: the host's retry policy applies.
    @_alwaysEmitIntoClient
    public var retryPolicy: RetryPolicy? { nil }

    /// `true`: the host's token is sent, and refreshed when needed.
    @_alwaysEmitIntoClient
    public var requiresAuthentication: Bool { true }

    /// `nil`: the host decides whether identical requests share a transfer.
    @_alwaysEmitIntoClient
    public var coalescesIdenticalRequests: Bool? { nil }

    /// `nil`: the body comes from `params` or `encodableBody`.
    @_alwaysEmitIntoClient
    public var multipartBody: MultipartFormData? { nil }

    /// `nil`: the host's cache policy applies.
    @_alwaysEmitIntoClient
    public var cachePolicy: CachePolicy? { nil }

    /// `["Content-Type": "application/json"]`, the header most JSON APIs expect.
    @_alwaysEmitIntoClient
    public func defaultJsonHeader() -> [String: String] {
        ["Content-Type": "application/json"]
    }
}
