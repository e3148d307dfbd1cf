import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything about one backend: its base URL, default headers, timeout, accepted
/// status codes, the queue callbacks arrive on, and the one `URLSession` that talks to it.
///
/// `HostConfiguration.shared` is a convenience for apps with one backend. An SDK that
/// lives inside somebody else's app should make its own instance, so that nothing it
/// sets (base URL, headers, session) is seen by the host app or a second SDK:
///
/// ```swift
/// let host = HostConfiguration(baseURL: URL(string: "https://api.example.com/v1")!)
/// host.defaultHeaders = ["X-SDK-Version": "1.2"]
/// let op = SignInOperation(configuration: host)
/// ```
///
/// The session is created on first use and invalidated (letting running tasks end)
/// when the configuration is deallocated. It is ephemeral, with no `URLCache`.
/// All properties are thread-safe.
public final class HostConfiguration: @unchecked Sendable {
    /// The name of the notification posted on `NotificationCenter.default` when a
    /// request of a host gets 401 Unauthorized:
    /// `"com.easynetwork.didPerformUnauthorizedOperation"` (prefixed, so it never collides
    /// with a name of the host app or of another SDK). The notification's `object` is the
    /// ``HostConfiguration``, so each SDK observes only its own host; `userInfo["error"]`
    /// holds the ``NetworkError``.
    public static let unauthorizedOperationNotification = Notification.Name("com.easynetwork.didPerformUnauthorizedOperation")

    /// The former name of ``unauthorizedOperationNotification``; it now holds the same,
    /// prefixed name, so observers that use this constant keep working. The unprefixed
    /// `"DidPerformUnauthorizedOperation"` is no longer posted.
    @available(*, deprecated, renamed: "unauthorizedOperationNotification")
    public static let didPerformUnauthorizedOperation = unauthorizedOperationNotification

    /// The shared configuration used by `ServiceOperation()` and friends. It always
    /// exists; until ``baseURL(_:)`` is called its requests fail with
    /// ``NetworkError/Kind-swift.enum/notConfigured``.
    public static let shared = HostConfiguration()

    /// The default timeout in seconds: 60.
    public static let defaultTimeout: TimeInterval = 60

    /// The settings of a host, read together.
    struct Settings {
        var baseURL: URL? {
            didSet { urlMemo = URLMemo() }
        }
        var baseURLProblem: String?
        /// URLs built on `baseURL`, emptied whenever it changes.
        var urlMemo = URLMemo()
        var defaultHeaders: [String: String] = [:]
        var timeout: TimeInterval = HostConfiguration.defaultTimeout
        var totalTimeout: TimeInterval?
        var callbackQueue: DispatchQueue = .main
        var acceptableStatusCodes: Set<Int> = Set(200..<300)
        var envelope: ResponseEnvelope?
        var jsonDecoder = JSONDecoder()
        var jsonEncoder = JSONEncoder()
        var errorHandler: ErrorHandler?
        var interceptors: [any RequestInterceptor] = []
        var retryPolicy: RetryPolicy = .none
        var authenticator: TokenAuthenticator?
        var coalescesRequests = false
        var responseCache: ResponseCache?
        var cachePolicy: CachePolicy = .networkOnly

        /// The base URL, or the error a request must fail with when there is none.
        var resolvedBaseURL: Result<URL, NetworkError> {
            if let baseURL { return .success(baseURL) }
            if let baseURLProblem {
                return .failure(NetworkError(kind: .invalidRequest, message: baseURLProblem))
            }
            return .failure(NetworkError(kind: .notConfigured))
        }
    }

    /// Settings shared, unchanged, by the requests that start before the next change:
    /// a request takes one reference instead of copying every setting.
    final class SettingsSnapshot: @unchecked Sendable {
        let settings: Settings

        init(_ settings: Settings) {
            self.settings = settings
        }
    }

    private struct Stored {
        var settings: Settings
        /// Made on the first request after a change; dropped by every change.
        var snapshot: SettingsSnapshot?
    }

    private let settings: Protected<Stored>

    /// A handler for every failed request of a host; see ``errorHandler``.
    public typealias ErrorHandler = (_ request: any BaseAPIRequest, _ error: NetworkError) -> Void

    /// The transport: owns this host's one `URLSession`.
    let transport: NetworkService

    /// Sets the shared configuration's base URL from a string.
    ///
    /// An invalid string (no scheme or host) does not crash: the shared base URL is
    /// cleared and requests fail with ``NetworkError/Kind-swift.enum/invalidRequest``
    /// naming the string.
    /// - Returns: whether the string was a usable URL.
    @discardableResult
    public static func baseURL(_ urlString: String) -> Bool {
        shared.setBaseURL(string: urlString)
    }

    /// Creates an independent configuration for one backend.
    ///
    /// - Parameters:
    ///   - baseURL: the URL every `api` path is appended to, e.g. `https://h/v1`.
    ///   - sessionConfiguration: the configuration of this host's session; a copy is
    ///     taken and its `urlCache` is removed. Defaults to `.ephemeral`. Tests pass one
    ///     with `protocolClasses` to stub the network.
    public init(baseURL: URL?, sessionConfiguration: URLSessionConfiguration = .ephemeral) {
        settings = Protected(Stored(settings: Settings(baseURL: baseURL)))
        transport = NetworkService(configuration: sessionConfiguration)
    }

    private convenience init() {
        self.init(baseURL: nil)
    }

    deinit {
        transport.invalidate()
    }

    /// The URL every request's `api` is appended to; `nil` when not configured.
    public var baseURL: URL? {
        get { self[\.baseURL] }
        set { update { $0.baseURL = newValue; $0.baseURLProblem = nil } }
    }

    /// Headers sent with every request of this host. A request's own headers win;
    /// names are compared case-insensitively.
    public var defaultHeaders: [String: String] {
        get { self[\.defaultHeaders] }
        set { self[\.defaultHeaders] = newValue }
    }

    /// The timeout of a request in seconds when the request sets none. Default 60.
    /// It is an idle timeout (as Apple's `timeoutIntervalForRequest`): an attempt fails
    /// only when no byte was sent or received for that long.
    public var timeout: TimeInterval {
        get { self[\.timeout] }
        set { self[\.timeout] = newValue }
    }

    /// The most seconds one attempt of a request may take however steadily bytes move
    /// (as Apple's `timeoutIntervalForResource`), when the request sets none; `nil`
    /// (the default) for no such limit. Passing it fails with `error.isTimeout`.
    public var totalTimeout: TimeInterval? {
        get { self[\.totalTimeout] }
        set { self[\.totalTimeout] = newValue }
    }

    /// The queue every callback of this host's requests is delivered on. Default `.main`.
    public var callbackQueue: DispatchQueue {
        // Read directly, not through a key path: every cancelled operation reads it.
        get { settings.read { $0.settings.callbackQueue } }
        set { self[\.callbackQueue] = newValue }
    }

    /// The status codes that count as success. Default `200..<300` (all of it,
    /// 299 included). Any other status fails the request with
    /// ``NetworkError/Kind-swift.enum/unacceptableStatus``.
    public var acceptableStatusCodes: Set<Int> {
        get { self[\.acceptableStatusCodes] }
        set { self[\.acceptableStatusCodes] = newValue }
    }

    /// How this backend wraps its answers (`{"code": 0, "data": …}`), or `nil` (the
    /// default) when it does not. See ``ResponseEnvelope``.
    public var envelope: ResponseEnvelope? {
        get { self[\.envelope] }
        set { self[\.envelope] = newValue }
    }

    /// The decoder for `Decodable` results: set its date and key strategies here.
    /// Do not change its settings while requests run; assign a new decoder instead.
    public var jsonDecoder: JSONDecoder {
        get { self[\.jsonDecoder] }
        set { self[\.jsonDecoder] = newValue }
    }

    /// The encoder for `Encodable` request bodies (``BaseAPIRequest/encodableBody``).
    /// Do not change its settings while requests run; assign a new encoder instead.
    public var jsonEncoder: JSONEncoder {
        get { self[\.jsonEncoder] }
        set { self[\.jsonEncoder] = newValue }
    }

    /// Called once for every failed request of this host, on the callback queue and
    /// before the request's own failure callback: the place for one error reporter or
    /// one "please sign in again" prompt. Not called for cancellations, nor for
    /// requests whose ``BaseAPIRequest/suppressesErrorHandler`` is `true`.
    public var errorHandler: ErrorHandler? {
        get { self[\.errorHandler] }
        set { self[\.errorHandler] = newValue }
    }

    /// Plugins every request of this host passes through, in order, before the
    /// request's own. See ``RequestInterceptor``.
    public var interceptors: [any RequestInterceptor] {
        get { self[\.interceptors] }
        set { self[\.interceptors] = newValue }
    }

    /// When failed requests are sent again; `.none` (the default) never retries.
    /// A request may bring its own (``BaseAPIRequest/retryPolicy``).
    public var retryPolicy: RetryPolicy {
        get { self[\.retryPolicy] }
        set { self[\.retryPolicy] = newValue }
    }

    /// Tokens for this host's requests, refreshed once however many fail together;
    /// `nil` (the default) sends no token. See ``TokenAuthenticator``.
    public var authenticator: TokenAuthenticator? {
        get { self[\.authenticator] }
        set {
            newValue?.host = self
            self[\.authenticator] = newValue
        }
    }

    /// Whether identical GET and HEAD requests in flight share one network request
    /// (each caller still gets its own callback; cancelling one caller cancels the
    /// network request only when all have cancelled). Default `false`; a request may
    /// decide for itself (``BaseAPIRequest/coalescesIdenticalRequests``).
    public var coalescesRequests: Bool {
        get { self[\.coalescesRequests] }
        set { self[\.coalescesRequests] = newValue }
    }

    /// The disk cache this host's requests may use, or `nil` (the default) for none.
    public var responseCache: ResponseCache? {
        get { self[\.responseCache] }
        set { self[\.responseCache] = newValue }
    }

    /// The cache policy of requests that set none (``BaseAPIRequest/cachePolicy``).
    /// Default `.networkOnly`. It matters only with a ``responseCache``.
    public var cachePolicy: CachePolicy {
        get { self[\.cachePolicy] }
        set { self[\.cachePolicy] = newValue }
    }

    /// Decides each redirect: return the request to follow (changed or not), or `nil`
    /// to stop and get the 3xx response. `nil` (the default) follows every redirect.
    /// Whatever it returns, `Authorization` and `Cookie` are removed when the redirect
    /// leads to another host, scheme or port.
    public var redirectHandler: (@Sendable (_ response: HTTPURLResponse, _ newRequest: URLRequest) -> URLRequest?)? {
        get { transport.redirectHandler }
        set { transport.redirectHandler = newValue }
    }

    /// Replaces the session configuration. Running requests finish on the old session;
    /// new ones use a session made from this configuration (copied, `urlCache` removed).
    public func setSessionConfiguration(_ configuration: URLSessionConfiguration) {
        transport.replaceConfiguration(configuration)
    }

    /// Sets the base URL from a string; see ``baseURL(_:)``.
    @discardableResult
    public func setBaseURL(string: String) -> Bool {
        let url = Self.validatedURL(string)
        update {
            $0.baseURL = url
            $0.baseURLProblem = url == nil ? "'\(string)' is not a valid base URL" : nil
        }
        return url != nil
    }

    /// The current settings, read under one lock and shared until the next change.
    func snapshot() -> SettingsSnapshot {
        settings.write { stored in
            if let snapshot = stored.snapshot { return snapshot }
            let snapshot = SettingsSnapshot(stored.settings)
            stored.snapshot = snapshot
            return snapshot
        }
    }

    /// One setting, read or changed under the lock; requests that start after a change
    /// see it.
    private subscript<Value>(setting: WritableKeyPath<Settings, Value>) -> Value {
        get { settings.read { $0.settings[keyPath: setting] } }
        set { update { $0[keyPath: setting] = newValue } }
    }

    /// Changes settings; requests that start afterwards see the change.
    private func update(_ body: (inout Settings) -> Void) {
        settings.write { stored in
            body(&stored.settings)
            stored.snapshot = nil
        }
    }

    static func validatedURL(_ string: String) -> URL? {
        let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let components = URLComponents(string: trimmed),
              let scheme = components.scheme, !scheme.isEmpty,
              let host = components.host, !host.isEmpty
        else { return nil }
        return components.url
    }
}
