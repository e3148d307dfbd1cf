import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one error type of EasyNetwork, sorted by the stage that failed.
///
/// Check ``kind`` (or the shortcuts ``isCancelled``, ``statusCode``) to react, and show
/// `localizedDescription` to a person. It bridges to `NSError` with the domain
/// ``errorDomain`` and the code `kind.rawValue`, stable across versions.
public struct NetworkError: Error, Sendable {
    /// The stage that failed. Raw values are the `NSError` codes and never change.
    ///
    /// Its ``rawValue``, ``init(rawValue:)`` and ``allCases`` are plain members, compiled
    /// into the program that uses them, not conformances to `RawRepresentable` and
    /// `CaseIterable` that every program would carry. A `switch` over it stays exhaustive.
    public enum Kind: Sendable {
        /// The request could not be built: a bad base URL, `api` or absolute URL.
        case invalidRequest
        /// The parameters or body could not be encoded (e.g. a `Date` or NaN in JSON).
        case encoding
        /// The transport failed: no connection, timeout, connection lost, TLS, …
        /// ``underlyingError`` holds the `URLError`.
        case transport
        /// The server answered with a status code the host does not accept.
        case unacceptableStatus
        /// The body could not be decoded or mapped into the expected type.
        case decoding
        /// The request or its operation was cancelled. Not a failure to report.
        case cancelled
        /// The host has no base URL: pass your own host to the operation
        /// (`configuration:`, as an SDK should), or, in an app, configure the shared one
        /// with `HostConfiguration.baseURL(_:)`.
        case notConfigured
        /// The server answered, but its envelope says the call failed (e.g. HTTP 200 with
        /// `{"code": 8888, "msg": "…"}`). See ``businessCode``, ``serverMessage``, ``traceId``.
        case business
        /// The request needed a token and none could be had: the refresh failed or was
        /// rate-limited (see `TokenAuthenticator`, in `EasyNetworkPlugins`).
        case authentication

        /// Every kind, in `rawValue` order.
        @_alwaysEmitIntoClient
        public static var allCases: [Kind] {
            [.invalidRequest, .encoding, .transport, .unacceptableStatus, .decoding, .cancelled, .notConfigured, .business, .authentication]
        }

        /// The kind's `NSError` code, 1 to 9 in the order declared; it never changes.
        @_alwaysEmitIntoClient
        public var rawValue: Int {
            switch self {
            case .invalidRequest: return 1
            case .encoding: return 2
            case .transport: return 3
            case .unacceptableStatus: return 4
            case .decoding: return 5
            case .cancelled: return 6
            case .notConfigured: return 7
            case .business: return 8
            case .authentication: return 9
            }
        }

        /// Whether `a` and `b` are the same kind (written out and emitted into the caller: no
        /// derived function in the core).
        @_alwaysEmitIntoClient
        public static func == (a: Kind, b: Kind) -> Bool {
            a.rawValue == b.rawValue
        }

        /// Hashes the kind's code (emitted into the caller: no derived function in the core).
        @_alwaysEmitIntoClient
        public func hash(into hasher: inout Hasher) {
            hasher.combine(rawValue)
        }

        /// The kind whose code is `rawValue`, or `nil`.
        @_alwaysEmitIntoClient
        public init?(rawValue: Int) {
            guard let kind = Kind.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = kind
        }
    }

    // Layout: one reference (1 word), so a copy is one retain. Every field lives in one
    // immutable object shared by every copy (replaced, never changed: see `copy`). Every
    // error allocates its object, a bare one too: errors are rare, and a table of shared
    // empty objects cost 480 bytes of code in every program.
    private var details: Details

    /// The stage that failed.
    public var kind: Kind { details.kind }

    /// How many times the request was sent before it failed (retries and replays
    /// included); `nil` when the error was not made by a request.
    public var attempts: Int? { details.attempts }

    /// The fields of an error, shared by its copies and never changed.
    private final class Details: Sendable {
        let kind: Kind
        let message: String?
        let statusCode: Int?
        let url: URL?
        let response: HTTPURLResponse?
        let data: Data?
        let underlyingError: (any Error)?
        let businessCode: String?
        let traceId: String?
        let payload: Data?
        let isUnauthorized: Bool
        /// `nil` when `message` is the library's words; else `message` (and the trace id) is
        /// text the server sent (a status error's JSON message, an envelope's), set where the
        /// library reads that text: `false` when ``NetworkError/message`` only counts it,
        /// `true` when the sentences quote it and the user info holds the trace id (the host's
        /// ``HostConfiguration/errorSentencesQuoteServerMessages``, applied as the request ends).
        let serverText: Bool?
        /// The library's words after `message` in ``NetworkError/message`` (see `appending(_:)`).
        let addendum: String?
        /// ``NetworkError/attempts``.
        let attempts: Int?

        init(kind: Kind, message: String? = nil, statusCode: Int? = nil, url: URL? = nil, response: HTTPURLResponse? = nil, data: Data? = nil,
             underlyingError: (any Error)? = nil, businessCode: String? = nil, traceId: String? = nil, payload: Data? = nil,
             isUnauthorized: Bool = false, serverText: Bool? = nil, addendum: String? = nil,
             attempts: Int? = nil) {
            self.kind = kind
            self.message = message
            self.statusCode = statusCode
            self.url = url
            self.response = response
            self.data = data
            self.underlyingError = underlyingError
            self.businessCode = businessCode
            self.traceId = traceId
            self.payload = payload
            self.isUnauthorized = isUnauthorized
            self.serverText = serverText
            self.addendum = addendum
            self.attempts = attempts
        }
    }

    /// Whether the error holds text the server sent that its sentences count and do not quote.
    var countsServerText: Bool { details.serverText == false }

    /// This error with its message (and trace id) marked as the server's text, quoted in
    /// the sentences or not.
    @inline(never)
    package func withServerText(quoted: Bool) -> NetworkError {
        copy(serverText: quoted, addendum: details.addendum, attempts: details.attempts)
    }

    /// This error as its request ends: with the request's `attempts` and, when `quoting` (the
    /// host's ``HostConfiguration/errorSentencesQuoteServerMessages``), the server's text it
    /// counts quoted instead. One copy (copies made before keep their values).
    package func ending(attempts: Int?, quoting: Bool) -> NetworkError {
        copy(serverText: quoting && countsServerText ? true : details.serverText, addendum: details.addendum, attempts: attempts)
    }

    /// This error, every field kept (the server's message still counted or quoted as the
    /// host says), with `clause`, in the library's words, after its ``message`` and `"; "`
    /// (`EasyNetworkRetry` says so why a retry was withheld).
    @_optimize(size)
    package func appending(_ clause: String) -> NetworkError {
        copy(serverText: details.serverText,
             addendum: details.addendum.map { "\($0); \(clause)" } ?? clause, attempts: details.attempts)
    }

    /// This error on a new ``Details`` with the flags, addendum and attempts given (copies
    /// made before keep theirs).
    @inline(never) @_optimize(size)
    private func copy(serverText: Bool?, addendum: String?, attempts: Int?) -> NetworkError {
        let old = details
        var error = self
        error.details = Details(
            kind: old.kind, message: old.message, statusCode: old.statusCode, url: old.url, response: old.response, data: old.data,
            underlyingError: old.underlyingError, businessCode: old.businessCode, traceId: old.traceId, payload: old.payload,
            isUnauthorized: old.isUnauthorized, serverText: serverText, addendum: addendum,
            attempts: attempts
        )
        return error
    }

    /// A sentence about what went wrong, in the library's words: a decoding error names
    /// the type, the key path and the body's size; when the server sent a message (a
    /// status error's JSON `error`, `message`, `msg`, `error_description` or `detail`, a
    /// ``Kind-swift.enum/business`` error's envelope message) it says how long that
    /// message is: `the server sent a message of 45 characters (not quoted)`.
    ///
    /// No text of the body and no header value is in it (nor in `localizedDescription`,
    /// ``description`` or ``errorUserInfo``): apps log these sentences. The server's text
    /// is in ``serverMessage``, the body in ``data`` and ``bodySnippet``. A host whose
    /// ``HostConfiguration/errorSentencesQuoteServerMessages`` is `true` gets the server's
    /// message here instead, and in the sentences.
    public var message: String? {
        @inline(never) @_optimize(size) get {  // one copy, not one in each reader (`failureReason`, the user info)
            var text = details.message
            if countsServerText, let server = text {
                let count = server.count
                text = "the server sent a message of \(count) character\(count == 1 ? "" : "s") (not quoted)"
            }
            guard let addendum = details.addendum else { return text }
            let head = text.map(Self.clause) ?? ""
            return head.isEmpty ? addendum : "\(head); \(addendum)"
        }
    }

    /// The message the server sent, as it sent it: a status error's JSON `error`,
    /// `message`, `msg`, `error_description` or `detail` string, or a
    /// ``Kind-swift.enum/business`` error's envelope message; `nil` when there was none.
    /// For showing to a person deliberately: no sentence of the error quotes it (unless
    /// the host opts in, see ``HostConfiguration/errorSentencesQuoteServerMessages``),
    /// since a server's message may carry an email address or a token.
    public var serverMessage: String? { details.serverText != nil ? details.message : nil }
    /// The HTTP status code, when a response arrived.
    public var statusCode: Int? { details.statusCode }
    /// The URL the request was for, when one was built.
    public var url: URL? { details.url }
    /// The HTTP response, when one arrived.
    public var response: HTTPURLResponse? { details.response }
    /// The response body, when one arrived (for status and decoding errors).
    public var data: Data? { details.data }
    /// The first 200 bytes of ``data`` as UTF-8 text (a byte that is not UTF-8 becomes
    /// U+FFFD), with `…` when the body is longer; `nil` when there is no body. For
    /// debugging: no sentence of the error quotes the body, since those reach logs and
    /// crash reports. Log this only where a body may go.
    @_alwaysEmitIntoClient
    public var bodySnippet: String? {
        guard let data, !data.isEmpty else { return nil }
        // Copied to bytes first: decoding `Data` or a slice of it inlines far more code.
        var bytes = [UInt8](repeating: 0, count: min(data.count, 200))
        data.copyBytes(to: &bytes, count: bytes.count)
        let text = String(decoding: bytes, as: UTF8.self)
        return data.count > 200 ? text + "…" : text
    }
    /// The error underneath: a `URLError`, `EncodingError`, `DecodingError`,
    /// ``ResponseMapperError`` or a mapper's own error.
    public var underlyingError: (any Error)? { details.underlyingError }
    /// The backend's own code for a ``Kind-swift.enum/business`` failure, as text
    /// (`8888`, `"A0230"`).
    public var businessCode: String? { details.businessCode }
    /// The trace or request id the backend's envelope carried, for support tickets. Body
    /// text, so the `NSError` user info holds one read from an envelope only on a host that
    /// quotes server messages (``HostConfiguration/errorSentencesQuoteServerMessages``).
    public var traceId: String? { details.traceId }
    /// The envelope's payload (e.g. its `data`) of a business failure, as JSON.
    public var payload: Data? { details.payload }
    /// Whether this error means "not signed in / token expired": HTTP 401, or a
    /// business code the host's envelope lists as unauthorized.
    public var isUnauthorized: Bool { details.isUnauthorized }

    /// Creates an error. The library makes these; tests and custom mappers may too.
    @inline(never) @_optimize(size)  // one copy, not one in each place that makes an error
    public init(
        kind: Kind,
        message: String? = nil,
        statusCode: Int? = nil,
        url: URL? = nil,
        response: HTTPURLResponse? = nil,
        data: Data? = nil,
        underlyingError: (any Error)? = nil,
        businessCode: String? = nil,
        traceId: String? = nil,
        payload: Data? = nil,
        isUnauthorized: Bool? = nil
    ) {
        let statusCode = statusCode ?? response?.statusCode
        let url = url ?? response?.url
        let isUnauthorized = isUnauthorized ?? (statusCode == 401)
        details = Details(
            kind: kind, message: message, statusCode: statusCode, url: url, response: response, data: data,
            underlyingError: underlyingError, businessCode: businessCode, traceId: traceId,
            payload: payload, isUnauthorized: isUnauthorized
        )
    }

    /// Whether the request was cancelled (by you, the operation or the queue).
    public var isCancelled: Bool { kind == .cancelled }

    /// Whether the transport gave up waiting (`URLError.timedOut`).
    @_alwaysEmitIntoClient
    public var isTimeout: Bool { urlError?.errorCode == NSURLErrorTimedOut }

    /// The `URLError` of a transport failure.
    public var urlError: URLError? {
        @inline(never) get { underlyingError as? URLError }
    }

    /// The error as `NSError`, for Objective-C-minded callers.
    @_alwaysEmitIntoClient
    public var nsError: NSError { self as NSError }
}

extension NetworkError {
    @inline(never)
    static func cancelled(url: URL?) -> NetworkError {
        library(.cancelled, nil, url: url)
    }

    static func transport(_ error: any Error, url: URL?) -> NetworkError {
        library(.transport, nil, url: url, underlyingError: error)
    }

    /// An error in the library's words (`message`) about `url`: the one call of the full
    /// initializer for them, so that no caller passes its eight other arguments.
    @inline(never) @_optimize(size)
    static func library(_ kind: Kind, _ message: String?, url: URL?, underlyingError: (any Error)? = nil) -> NetworkError {
        NetworkError(kind: kind, message: message, url: url, underlyingError: underlyingError)
    }

    /// `error` when it is a ``NetworkError`` (an envelope's business error), else a
    /// `decoding` error about `response` naming what went wrong, where, and the body's size.
    @inline(never) @_optimize(size)
    static func decoding(_ error: any Error, response: NetworkResponse) -> NetworkError {
        error as? NetworkError ?? response.decodingError(DecodingDiagnostics.reason(for: error), underlyingError: error)
    }
}

extension NetworkError: LocalizedError {
    /// The opening words of each kind's sentence, in `rawValue` order: one table of fixed
    /// phrases, not a builder per kind.
    private static let heads = [
        "The request is invalid", "The request parameters could not be encoded", "The network request failed",
        "The server answered with status ", "The response could not be read", "The request was cancelled",
        "No base URL is configured", "The server reported a failure", "Authentication failed",
    ]

    /// A sentence a person understands: what failed, the attempts when a retry repeated
    /// it, then ``message`` (or the `URLError`'s own words), ending with one full stop.
    /// ``Kind-swift.enum/notConfigured`` adds what to do.
    @_optimize(size)
    public var errorDescription: String? {
        let kind = kind
        var text = Self.heads[kind.rawValue - 1]
        var detail = kind == .cancelled ? nil : message  // a cancellation's message is not shown
        switch kind {
        case .unacceptableStatus:
            if let code = statusCode {
                text += "\(code) \(HTTPURLResponse.localizedString(forStatusCode: code))"
            } else {
                text += "unknown"
            }
        case .business:
            if let businessCode { text += " (code \(businessCode))" }
        case .transport:
            if let words = urlError?.localizedDescription {
                detail = detail.map { "\(Self.clause(words)): \($0)" } ?? words
            }
        default: break
        }
        // Only the kinds a retry can repeat (transport 3, status 4, business 8) mention the attempts.
        if let attempts, attempts > 1, 0b1_0001_1000 & (1 << kind.rawValue) != 0 {
            text += " (after \(attempts) attempts)"
        }
        if let detail {
            let words = Self.clause(detail)
            if !words.isEmpty { text += ": " + words }
        }
        text = Self.sentence(text)
        return kind != .notConfigured ? text : text + """
             An SDK passes its own host to each operation (configuration: HostConfiguration(baseURL:)); \
            an app may configure the shared host with HostConfiguration.baseURL(_:). \
            A request with an absoluteURL needs neither.
            """
    }

    /// Why it failed, when known.
    @_alwaysEmitIntoClient  // in its witness: no function of its own
    public var failureReason: String? { message }

    /// `text` without the spaces around it and without a closing full stop, comma,
    /// colon or semicolon, to go on with `": "` (`…` and `.)` stay).
    static func clause(_ text: String) -> String {
        words(text, asSentence: false)
    }

    /// `text` ending as one sentence: a full stop added unless it ends with `!`, `?`, `…`
    /// or `.)`, after closing stops, commas, colons and semicolons are dropped.
    static func sentence(_ text: String) -> String {
        words(text, asSentence: true)
    }

    /// ``clause(_:)``, or with `asSentence` ``sentence(_:)``: one function for both.
    ///
    /// Size: works on the UTF-8 bytes (an error path, never hot), so no `Character` or
    /// `Substring` algorithm is compiled for it.
    @inline(never)
    private static func words(_ text: String, asSentence: Bool) -> String {
        let bytes = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        var count = bytes.count
        while count > 0, case let last = bytes[count - 1], last == 0x2E || last == 0x2C || last == 0x3A || last == 0x3B || last == 0x20 {  // . , : ; space
            count -= 1
        }
        let text = String(decoding: bytes.prefix(count), as: UTF8.self)
        let last = count > 0 ? bytes[count - 1] : 0, before = count > 1 ? bytes[count - 2] : 0
        // Ends a sentence already: `!`, `?`, `…` (E2 80 A6) or `.)`.
        let ends = last == 0x21 || last == 0x3F || last == 0xA6 && before == 0x80 || last == 0x29 && before == 0x2E
        return asSentence && !ends ? text + "." : text
    }
}

extension NetworkError: CustomNSError {
    /// `"EasyNetwork.NetworkError"`, the `NSError` domain of every `NetworkError`.
    @_alwaysEmitIntoClient  // in its witnesses: no function of its own
    public static var errorDomain: String { "EasyNetwork.NetworkError" }

    /// The ``Kind-swift.enum`` raw value.
    @_alwaysEmitIntoClient
    public var errorCode: Int { kind.rawValue }

    /// Description, failure reason (``message``), status code, business code, trace id, URL
    /// and underlying error, under the usual keys; a trace id read from an envelope only on
    /// a host that quotes server messages.
    public var errorUserInfo: [String: Any] {
        var info = [String: Any]()
        Self.put(errorDescription, NSLocalizedDescriptionKey, &info)
        Self.put(attempts, "attempts", &info)
        Self.put(message, NSLocalizedFailureReasonErrorKey, &info)
        Self.put(statusCode, "statusCode", &info)
        Self.put(businessCode, "businessCode", &info)
        Self.put(countsServerText ? nil : traceId, "traceId", &info)
        Self.put(url, NSURLErrorFailingURLErrorKey, &info)
        Self.put(underlyingError.map { $0 as NSError }, NSUnderlyingErrorKey, &info)
        return info
    }

    /// `value` under `key` unless it is `nil`. Unoptimized on purpose: it calls the
    /// standard library's generic `updateValue` instead of compiling a copy for `[String: Any]`.
    @_optimize(none)
    private static func put<Value>(_ value: Value?, _ key: String, _ info: inout [String: Any]) {
        if let value { info.updateValue(value, forKey: key) }
    }
}

extension NetworkError: CustomStringConvertible {
    /// The localized description, prefixed with the kind.
    @_optimize(size)
    public var description: String {
        "NetworkError.\(kind): \(errorDescription ?? "")"
    }
}
