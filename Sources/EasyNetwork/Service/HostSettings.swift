import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The settings of a host, read together: what a request takes when it starts.
///
/// Immutable once published. ``HostConfiguration`` changes a setting by copying the
/// published settings under its lock, changing the copy and publishing it in place of
/// the old one, so a request keeps the object it started with and never sees a
/// change half-way. A request takes one reference instead of copying every setting.
///
/// Adding a setting: an element of ``Tunables`` with its default in ``defaults()``, an
/// internal reader below, and an `@_alwaysEmitIntoClient` property of the host that reads
/// `snapshot().tunables` and sets with ``HostConfiguration/changeTunables(_:)``.
@usableFromInline  // read and set by the host settings emitted into their callers
package final class HostSettings: @unchecked Sendable {
    // unchecked: fields are written only on a fresh copy under the host's lock before it
    // is published; a published object is never written again.
    // So its fields are `@exclusivity(unchecked)`: no access can overlap, and the core
    // carries no dynamic access check for them.

    /// The URL every request's `api` is appended to; see ``setBaseURL(_:given:)``.
    @exclusivity(unchecked) private(set) var baseURL: Optional<URL>
    /// Why the last base URL given was rejected, or `nil`.
    @exclusivity(unchecked) private(set) var baseURLProblem: Optional<String>
    /// URLs built on `baseURL`, a new one whenever it changes.
    @exclusivity(unchecked) private(set) var urlMemo: URLMemo
    /// Why `defaultHeaders` are refused (a name or value ``HeaderFieldCheck`` rejects), or `nil`.
    @exclusivity(unchecked) var defaultHeadersFailure: Optional<NetworkError>
    /// Why the session configuration's `httpAdditionalHeaders` are refused, or `nil`.
    @exclusivity(unchecked) var sessionHeadersFailure: Optional<NetworkError>

    /// The settings the host's properties read and set from their callers' modules (they
    /// are `@_alwaysEmitIntoClient`) and the products read, as one value: one getter and
    /// one ``change(_:)`` for all of them, where a field each would bring a reader and a
    /// setter each (a `@usableFromInline var` a getter, a setter and a `modify`). A tuple,
    /// not a struct: its elements have no accessors. The core reads them directly.
    @usableFromInline
    package typealias Tunables = (
        defaultHeaders: [String: String],
        timeout: TimeInterval,
        totalTimeout: Optional<TimeInterval>,
        callbackQueue: DispatchQueue,
        acceptableStatusCodes: Set<Int>,
        // The envelope (`EasyNetworkEnvelopes`), or `nil`.
        payloadReader: Optional<any PayloadReader>,
        jsonDecoder: JSONDecoder,
        jsonEncoder: JSONEncoder,
        errorHandler: Optional<HostConfiguration.ErrorHandler>,
        errorSentencesQuoteServerMessages: Bool,
        interceptors: [any RequestInterceptor],
        cachePolicy: CachePolicy,
        // Decides each redirect (`HostConfiguration.redirectHandler`); the session delegate reads it.
        redirectHandler: Optional<@Sendable (_ response: HTTPURLResponse, _ newRequest: URLRequest) -> URLRequest?>,
        // The installed optional features, in `HostFeature.order` (`EasyNetworkFeatures` installs them).
        features: [any HostFeature],
        // Who judges the host's servers beyond the system's trust (pinning), if anyone; the
        // session delegate reads it (`HostConfiguration.setTrustEvaluator(_:)`).
        trustEvaluator: Optional<any ServerTrustEvaluator>
    )

    /// The host's settings; see ``Tunables``.
    @exclusivity(unchecked) private var values: Tunables

    /// The host's settings, for the host's properties and the products (one getter: a
    /// `@usableFromInline` stored property would bring a setter and a `modify` too).
    @usableFromInline
    package var tunables: Tunables { values }

    /// Changes ``tunables`` of a copy from ``HostConfiguration/beginChange()`` in place:
    /// `body`, the caller's, assigns what changes (here no code assigns or releases
    /// every element).
    @usableFromInline
    package func change(_ body: (inout Tunables) -> Void) {
        body(&values)
    }

    // What the core's own files read (no functions of their own: inlined where read).
    var defaultHeaders: [String: String] {
        get { values.defaultHeaders }
        set { values.defaultHeaders = newValue }
    }
    var timeout: TimeInterval { values.timeout }
    var totalTimeout: TimeInterval? { values.totalTimeout }
    /// Read by ``HostConfiguration/callbackQueue`` (emitted into the products that ask):
    /// one field, where `tunables` would copy and release all fifteen at each call site.
    @usableFromInline
    var callbackQueue: DispatchQueue { values.callbackQueue }
    var acceptableStatusCodes: Set<Int> { values.acceptableStatusCodes }
    var payloadReader: (any PayloadReader)? {
        get { values.payloadReader }
        set { values.payloadReader = newValue }
    }
    var jsonDecoder: JSONDecoder { values.jsonDecoder }
    var jsonEncoder: JSONEncoder { values.jsonEncoder }
    var errorHandler: HostConfiguration.ErrorHandler? { values.errorHandler }
    var errorSentencesQuoteServerMessages: Bool { values.errorSentencesQuoteServerMessages }
    var interceptors: [any RequestInterceptor] { values.interceptors }
    var cachePolicy: CachePolicy { values.cachePolicy }
    var redirectHandler: (@Sendable (HTTPURLResponse, URLRequest) -> URLRequest?)? { values.redirectHandler }
    var trustEvaluator: (any ServerTrustEvaluator)? { values.trustEvaluator }
    /// The installed features, for the outbox's `sendingPause` (emitted into it) and the
    /// features' installer (`EasyNetworkFeatures`).
    @usableFromInline
    package var features: [any HostFeature] { values.features }

    /// The defaults of a new host.
    convenience init(baseURL: URL?) {
        self.init(nil)
        setBaseURL(baseURL)
    }

    /// A copy of `other`, every field the same (the URL memo shared), or with `nil` the
    /// defaults of a new host, not configured. (One initializer for both: two would each
    /// hold a line per field.)
    private init(_ other: HostSettings?) {
        baseURL = other?.baseURL
        baseURLProblem = other?.baseURLProblem
        urlMemo = other?.urlMemo ?? URLMemo()
        defaultHeadersFailure = other?.defaultHeadersFailure
        sessionHeadersFailure = other?.sessionHeadersFailure
        if let other {
            values = other.values
        } else {
            values = Self.defaults()
        }
    }

    /// ``baseURL``, for ``HostConfiguration/baseURL``.
    @usableFromInline
    var baseURLValue: URL? { baseURL }

    /// A new host's settings. Its encoder for `Encodable` bodies writes dates as ISO 8601
    /// text (`"2026-11-23T10:00:00Z"`), which backends expect, instead of `JSONEncoder`'s
    /// seconds since 2001.
    private static func defaults() -> Tunables {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        // `[String: String]()`, not `[:]`: the literal compiles a call of a
        // `Dictionary(dictionaryLiteral:)` specialization that nothing else needs.
        return ([String: String](), HostConfiguration.defaultTimeout, nil, .main, successStatusCodes(), nil, JSONDecoder(), encoder, nil, false, [], .networkOnly, nil, [], nil)
    }

    /// `200..<300` as a set, built once per host by the standard library's own generic
    /// code: optimized, this one line would compile a `Set<Int>` builder (insert, grow,
    /// copy: about 2 KB) into every program, and the library builds no other `Set<Int>`.
    @_optimize(none)
    private static func successStatusCodes() -> Set<Int> {
        Set(200..<300)
    }

    /// A private copy to change before publishing it.
    func copy() -> HostSettings {
        HostSettings(self)
    }

    /// Sets the base URL when it is usable (see ``usableBaseURL(_:)``), else clears it
    /// and keeps why, naming `given` (the text the caller gave; else the URL's own), so a
    /// request fails before anything is sent. `nil` and no text: not configured. Starts an
    /// empty URL memo.
    @usableFromInline
    func setBaseURL(_ url: URL?, given: String? = nil) {
        baseURL = nil
        baseURLProblem = nil
        urlMemo = URLMemo()
        var isIPv6 = false
        if let url {
            #if canImport(FoundationNetworking)
            isIPv6 = Self.isIPv6Literal(url)  // asked once: it decides both the URL and the message
            #endif
            if !isIPv6 { baseURL = Self.usableBaseURL(url) }
        }
        if baseURL == nil, let text = given ?? url?.absoluteString {
            baseURLProblem = Self.refusedBaseURL(text, isIPv6: isIPv6)
        }
    }

    /// `string` (trimmed) as a URL, or `nil`; ``setBaseURL(_:given:)`` judges it. (Here, with
    /// the other `URLComponents` code: each file that uses it carries helpers of its own.)
    @usableFromInline
    static func parsedURL(_ string: String) -> URL? {
        URLComponents(string: string.trimmingCharacters(in: .whitespacesAndNewlines))?.url
    }

    /// `url` as a base URL when it can be one: the scheme `http` or `https` (in any case;
    /// written in lowercase, since URLSession on Linux refuses `HTTP://`) and a host; else
    /// `nil`. (On Linux the caller has refused an IPv6 address: see ``isIPv6Literal(_:)``.)
    /// The same rule for every way a base URL is given.
    @inline(__always)  // one caller
    static func usableBaseURL(_ url: URL) -> URL? {
        guard let scheme = url.scheme, let host = url.host, !host.isEmpty else { return nil }
        let lowercased = scheme.lowercased()
        guard lowercased == "http" || lowercased == "https" else { return nil }
        if lowercased == scheme { return url }
        var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
        parts?.scheme = lowercased
        return parts?.url
    }

    /// The message of a request on a host whose base URL `text` was refused, or (`isIPv6`)
    /// of a URL `text` whose host is an IPv6 address, on Linux. (One function for both
    /// sentences: each concatenation compiles its own copy.)
    @inline(never)
    static func refusedBaseURL(_ text: String, isIPv6: Bool) -> String {
        "'" + text + (isIPv6
            ? "' cannot be used on Linux: its host is an IPv6 address, which URLSession there refuses before connecting (swift-corelibs-foundation 6.3); give a host name that resolves to the address instead, such as localhost for ::1"
            : "' is not a usable base URL (it needs http:// or https:// and a host, as in https://api.example.com/v1)")
    }

    #if canImport(FoundationNetworking)
    /// Whether `url`'s host is an IPv6 address (`http://[::1]:8765`), which URLSession on
    /// Linux fails before connecting, with `URLError` -1000: swift-corelibs-foundation
    /// compares curl's host (`[::1]`) with `URL.host` (`::1`) and refuses the URL when they
    /// differ (its issue 5496, fixed by pull request 5498 after Swift 6.3.1).
    @inline(never)  // three callers
    static func isIPv6Literal(_ url: URL) -> Bool {
        // No name or IPv4 address holds a colon. (`strchr`: `utf8.contains` or a loop over
        // the view compiles 600 bytes.)
        guard let host = url.host else { return false }
        return strchr(host, Int32(UInt8(ascii: ":"))) != nil
    }

    /// The message of a URL `text` whose host is an IPv6 address, on Linux.
    static func refusedIPv6Literal(_ text: String) -> String {
        refusedBaseURL(text, isIPv6: true)
    }
    #endif

    /// The settings themselves; kept so that code written for the former snapshot
    /// wrapper (`snapshot.settings.timeout`) reads on unchanged.
    var settings: HostSettings { self }

    /// The base URL, or the error a request must fail with when there is none.
    var resolvedBaseURL: Result<URL, NetworkError> {
        if let baseURL { return .success(baseURL) }
        // One error made: with no problem kept, `message: nil` makes the bare `notConfigured`.
        return .failure(NetworkError(kind: baseURLProblem == nil ? .notConfigured : .invalidRequest, message: baseURLProblem))
    }
}
