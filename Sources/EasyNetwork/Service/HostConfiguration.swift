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
    // unchecked: `current` is read and replaced only under `lock`; the rest is immutable or Sendable.
    //
    // Size: `snapshot()`, `beginChange()` and `endChange(_:)` are never inlined. A setting
    // the seed program never touches is emitted into the module that reads or sets it
    // (`@_alwaysEmitIntoClient`), so the core holds no accessors of it; the rest have
    // accessors that are never inlined, so the `modify` the compiler adds to each public
    // property only calls them.

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
    @_alwaysEmitIntoClient  // in the caller: nothing in the library reads it
    public static var didPerformUnauthorizedOperation: Notification.Name { unauthorizedOperationNotification }

    /// The shared configuration used by `ServiceOperation()` and friends. It always
    /// exists; until ``baseURL(_:)`` is called its requests fail with
    /// ``NetworkError/Kind-swift.enum/notConfigured``.
    public static let shared = HostConfiguration()

    /// The default timeout in seconds: 60.
    public static let defaultTimeout: TimeInterval = 60

    /// The settings of a host, read together; see ``HostSettings``.
    typealias Settings = HostSettings

    /// What a request takes when it starts: the settings published at that moment.
    typealias SettingsSnapshot = HostSettings

    /// Guards `current`. (Set in `init`: in a public type an initial value here compiles
    /// a function with an unwind entry.)
    private let lock: Lock

    /// The published settings: replaced, never changed, by every set.
    private var current: HostSettings

    /// A handler for every failed request of a host; see ``errorHandler``.
    public typealias ErrorHandler = (_ request: any BaseAPIRequest, _ error: NetworkError) -> Void

    /// The transport: owns this host's one `URLSession`.
    package let transport: NetworkService

    /// Sets the shared configuration's base URL from a string.
    ///
    /// The string must be an `http` or `https` URL with a host, as for every base URL.
    /// Another (`localhost:8765`, `http://`, `ftp://h`) does not crash: the shared base
    /// URL is cleared and its requests fail before anything is sent, with
    /// ``NetworkError/Kind-swift.enum/invalidRequest`` naming the string. On Linux an IPv6
    /// address as the host (`http://[::1]:8765`) is refused the same way, with a message
    /// that says why (see ``init(baseURL:sessionConfiguration:)``).
    /// - Returns: whether the string was a usable base URL.
    @discardableResult
    @_alwaysEmitIntoClient  // in the caller: the seed program sets no base URL from a string
    public static func baseURL(_ urlString: String) -> Bool {
        shared.setBaseURL(string: urlString)
    }

    /// Creates an independent configuration for one backend.
    ///
    /// - Parameters:
    ///   - baseURL: the URL every `api` path is appended to, e.g. `https://h/v1`: an
    ///     `http` or `https` URL with a host. Another (`URL(string: "http://")`, an `ftp`
    ///     URL, `URL(string: "localhost:8765")`, which has the scheme `localhost`) is not
    ///     kept: ``baseURL`` reads `nil`, and every request that needs it fails before
    ///     anything is sent with ``NetworkError/Kind-swift.enum/invalidRequest`` naming it.
    ///     On Linux a host that is an IPv6 address (`http://[::1]:8765`) is not kept either,
    ///     and the error says why: URLSession there (swift-corelibs-foundation 6.3) fails
    ///     such a URL before connecting. Use a host name that resolves to the address
    ///     (`localhost` for `::1`). Apple platforms accept it.
    ///     `nil`: not configured (requests fail with
    ///     ``NetworkError/Kind-swift.enum/notConfigured``).
    ///   - sessionConfiguration: the configuration of this host's session; a copy is
    ///     taken and its `urlCache` is removed. Defaults to `.ephemeral`, a new one for
    ///     each host: each host then keeps its own cookie jar, in memory (a cookie it
    ///     received goes back with its own requests only; see <doc:EmbeddingInAnSDK>).
    ///     One you pass keeps its `httpCookieStorage`: `.default` shares the app's, and
    ///     hosts given one configuration object share its jar. Tests pass one with
    ///     `protocolClasses` to stub the network.
    @inline(never)  // one copy, not another inside the allocating entry
    @_semantics("optimize.sil.specialize.owned2guarantee.never")
    public init(baseURL: URL?, sessionConfiguration: URLSessionConfiguration = .ephemeral) {
        lock = Lock()
        current = HostSettings(baseURL: baseURL)
        current.sessionHeadersFailure = HeaderFieldCheck.failure(in: sessionConfiguration)
        transport = NetworkService(configuration: sessionConfiguration)
        transport.delegate.host = self  // for the redirect handler
    }

    private convenience init() {
        self.init(baseURL: nil)
    }

    deinit {
        transport.invalidate()
    }

    /// The URL every request's `api` is appended to; `nil` when not configured, or when
    /// the URL given was not an `http` or `https` URL with a host (then requests fail with
    /// ``NetworkError/Kind-swift.enum/invalidRequest`` naming it; see ``init(baseURL:sessionConfiguration:)``).
    @_alwaysEmitIntoClient  // in the caller: the seed program sets no such setting
    public var baseURL: URL? {
        get { snapshot().baseURLValue }
        set {
            let settings = beginChange()
            settings.setBaseURL(newValue)
            endChange(settings)
        }
    }

    /// Headers sent with every request of this host. A request's own headers win;
    /// names are compared case-insensitively. While a name is not an HTTP token or a
    /// value holds CR, LF or NUL, every request fails with
    /// ``NetworkError/Kind-swift.enum/invalidRequest`` and a ``HeaderFieldError`` naming it.
    @_alwaysEmitIntoClient  // in the caller: the seed program sets no such setting
    public var defaultHeaders: [String: String] {
        get { snapshot().tunables.defaultHeaders }
        set { setDefaultHeaders(newValue) }
    }

    /// Checks and publishes `headers` as ``defaultHeaders`` (the check outside the lock).
    @usableFromInline
    func setDefaultHeaders(_ headers: [String: String]) {
        let failure = HeaderFieldCheck.failure(in: headers, url: nil, source: "the host's default headers")
        let settings = beginChange()
        settings.defaultHeaders = headers
        settings.defaultHeadersFailure = failure
        endChange(settings)
    }

    /// The timeout of a request in seconds when the request sets none. Default 60.
    /// It is an idle timeout (as Apple's `timeoutIntervalForRequest`): an attempt fails
    /// only when no byte was sent or received for that long, within 50 ms after that, and
    /// may be sub-second. On Linux, URLSession keeps a whole number of seconds itself for a
    /// request that needs no byte events (as exactly: see ``RequestMetrics/firstByteAt``
    /// for what such a request does not measure); EasyNetwork keeps every other one.
    @_alwaysEmitIntoClient  // in the caller: the seed program sets no such setting
    public var timeout: TimeInterval {
        get { snapshot().tunables.timeout }
        set { changeTunables { $0.timeout = newValue } }
    }

    /// The most seconds one attempt of a request may take however steadily bytes move
    /// (as Apple's `timeoutIntervalForResource`), when the request sets none; `nil`
    /// (the default) for no such limit. Passing it fails with `error.isTimeout`.
    @_alwaysEmitIntoClient  // in the caller: the seed program sets no such setting
    public var totalTimeout: TimeInterval? {
        get { snapshot().tunables.totalTimeout }
        set { changeTunables { $0.totalTimeout = newValue } }
    }

    /// The queue every callback of this host's requests is delivered on. Default `.main`.
    @_alwaysEmitIntoClient  // in the caller: the seed program sets no such setting
    public var callbackQueue: DispatchQueue {
        get { snapshot().callbackQueue }
        set { changeTunables { $0.callbackQueue = newValue } }
    }

    /// The status codes that count as success. Default `200..<300` (all of it,
    /// 299 included). Any other status fails the request with
    /// ``NetworkError/Kind-swift.enum/unacceptableStatus``.
    @_alwaysEmitIntoClient  // in the caller: the seed program sets no such setting
    public var acceptableStatusCodes: Set<Int> {
        get { snapshot().tunables.acceptableStatusCodes }
        set { changeTunables { $0.acceptableStatusCodes = newValue } }
    }

    /// The decoder for `Decodable` results: set its date and key strategies here (a new
    /// host's is a plain `JSONDecoder()`, whose dates are seconds since 2001: set
    /// `dateDecodingStrategy` to what your backend sends, e.g. `.iso8601`).
    /// Do not change its settings while requests run; assign a new decoder instead.
    @_alwaysEmitIntoClient  // in the caller: the seed program sets no such setting
    public var jsonDecoder: JSONDecoder {
        get { snapshot().tunables.jsonDecoder }
        set { changeTunables { $0.jsonDecoder = newValue } }
    }

    /// The encoder for `Encodable` request bodies (``BaseAPIRequest/encodableBody``).
    /// A new host's encoder writes dates as ISO 8601 text (`"2026-11-23T10:00:00Z"`);
    /// assign another encoder for another format (a plain `JSONEncoder()` writes
    /// Foundation's default, seconds since 2001). Do not change its settings while
    /// requests run; assign a new encoder instead.
    @_alwaysEmitIntoClient  // in the caller: the seed program sets no such setting
    public var jsonEncoder: JSONEncoder {
        get { snapshot().tunables.jsonEncoder }
        set { changeTunables { $0.jsonEncoder = newValue } }
    }

    /// Called once for every failed request of this host, on the callback queue and
    /// before the request's own failure callback: the place for one error reporter or
    /// one "please sign in again" prompt. Not called for cancellations, nor for
    /// requests whose ``BaseAPIRequest/suppressesErrorHandler`` is `true`.
    @_alwaysEmitIntoClient  // in the caller: the seed program sets no such setting
    public var errorHandler: ErrorHandler? {
        get { snapshot().tunables.errorHandler }
        set { changeTunables { $0.errorHandler = newValue } }
    }

    /// Whether this host's errors quote the server's message in their sentences. `false`
    /// (the default): a ``NetworkError``'s `localizedDescription`, ``NetworkError/message``
    /// and user info say only that the server sent a message and how long it is, since
    /// such a message (`token abc123 is not valid for ana@example.com`) reaches the app's
    /// logs and crash reports through them; the text is in ``NetworkError/serverMessage``.
    /// `true`: the sentences and `message` hold the server's message, and the user info
    /// an envelope's trace id, as before 1.0. Other hosts are not affected.
    @_alwaysEmitIntoClient  // in the caller: the seed program sets no such setting
    public var errorSentencesQuoteServerMessages: Bool {
        get { snapshot().tunables.errorSentencesQuoteServerMessages }
        set { changeTunables { $0.errorSentencesQuoteServerMessages = newValue } }
    }

    /// Plugins every request of this host passes through, in order, before the
    /// request's own. See ``RequestInterceptor``.
    @_alwaysEmitIntoClient  // in the caller: the seed program sets no such setting
    public var interceptors: [any RequestInterceptor] {
        get { snapshot().tunables.interceptors }
        set { changeTunables { $0.interceptors = newValue } }
    }

    /// The cache policy of requests that set none (``BaseAPIRequest/cachePolicy``).
    /// Default `.networkOnly`. It matters only with a response cache
    /// (`host.responseCache`, from the `EasyNetworkCache` product).
    @_alwaysEmitIntoClient  // in the caller: the seed program sets no such setting
    public var cachePolicy: CachePolicy {
        get { snapshot().tunables.cachePolicy }
        set { changeTunables { $0.cachePolicy = newValue } }
    }

    /// Decides each redirect: return the request to follow (changed or not), or `nil`
    /// to stop and get the 3xx response. `nil` (the default) follows every redirect.
    /// Whatever it returns, `Authorization` and `Cookie` are removed when the redirect
    /// leads to another host, scheme or port.
    @_alwaysEmitIntoClient  // in the caller: the seed program sets no such setting
    public var redirectHandler: (@Sendable (_ response: HTTPURLResponse, _ newRequest: URLRequest) -> URLRequest?)? {
        get { snapshot().tunables.redirectHandler }
        set { changeTunables { $0.redirectHandler = newValue } }
    }

    /// Replaces the session configuration. Running requests finish on the old session;
    /// new ones use a session made from this configuration (copied, `urlCache` removed).
    /// Its `httpAdditionalHeaders` are checked like ``defaultHeaders``.
    public func setSessionConfiguration(_ configuration: URLSessionConfiguration) {
        let failure = HeaderFieldCheck.failure(in: configuration)
        let settings = beginChange()
        settings.sessionHeadersFailure = failure
        endChange(settings)
        transport.replaceConfiguration(configuration)
    }

    /// Sets the base URL from a string; see ``baseURL(_:)``.
    @discardableResult
    @_alwaysEmitIntoClient  // in the caller: the seed program sets no base URL from a string
    public func setBaseURL(string: String) -> Bool {
        let url = HostSettings.parsedURL(string)
        let settings = beginChange()
        settings.setBaseURL(url, given: string)
        let usable = settings.baseURLValue != nil
        endChange(settings)
        return usable
    }

    /// Makes `evaluator` the judge of this host's servers beyond the system's trust
    /// (pinning; `nil`: nobody), for the tasks its session delegate meets from now on.
    /// (Emitted into the product that installs one.)
    @_alwaysEmitIntoClient
    package func setTrustEvaluator(_ evaluator: (any ServerTrustEvaluator)?) {
        changeTunables { $0.trustEvaluator = evaluator }
    }

    /// Changes the settings' ``HostSettings/tunables`` with `change` (an assignment: nothing
    /// that calls out or waits) and publishes them; emitted with the properties that call it.
    @_alwaysEmitIntoClient
    func changeTunables(_ change: (inout HostSettings.Tunables) -> Void) {
        let settings = beginChange()
        settings.change(change)
        endChange(settings)
    }

    /// The current settings: immutable, shared by every request that starts before the
    /// next change.
    @inline(never) @usableFromInline
    package func snapshot() -> HostSettings {
        lock.lock()
        let settings = current
        lock.unlock()
        return settings
    }

    /// Starts a change: takes the lock and returns a private copy of the settings.
    /// Change the copy (nothing that calls out or waits) and hand it to
    /// ``endChange(_:)`` at once, on every path.
    @inline(never) @usableFromInline
    package func beginChange() -> HostSettings {
        lock.lock()
        return current.copy()
    }

    /// Publishes the settings from ``beginChange()`` and lets go of the lock; requests
    /// that start afterwards see them, requests already running keep theirs.
    @inline(never) @usableFromInline
    package func endChange(_ changed: HostSettings) {
        let replaced = current
        current = changed
        lock.unlock()
        // When nothing else holds the replaced settings, they and a value only they held
        // (an old interceptor, say) go here, after the lock, so a deinit may use this host.
        withExtendedLifetime(replaced) {}
    }
}
