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
    public enum Kind: Int, Sendable, CaseIterable {
        /// The request could not be built: a bad base URL, `api` or absolute URL.
        case invalidRequest = 1
        /// The parameters or body could not be encoded (e.g. a `Date` or NaN in JSON).
        case encoding = 2
        /// The transport failed: no connection, timeout, connection lost, TLS, …
        /// ``underlyingError`` holds the `URLError`.
        case transport = 3
        /// The server answered with a status code the host does not accept.
        case unacceptableStatus = 4
        /// The body could not be decoded or mapped into the expected type.
        case decoding = 5
        /// The request or its operation was cancelled. Not a failure to report.
        case cancelled = 6
        /// The host has no base URL: call `HostConfiguration.baseURL(_:)` first.
        case notConfigured = 7
        /// The server answered, but its envelope says the call failed (e.g. HTTP 200 with
        /// `{"code": 8888, "msg": "…"}`). See ``businessCode``, ``message``, ``traceId``.
        case business = 8
        /// The request needed a token and none could be had: the refresh failed or was
        /// rate-limited (see ``TokenAuthenticator``).
        case authentication = 9
    }

    /// The stage that failed.
    public let kind: Kind
    /// A sentence about what went wrong; for ``Kind-swift.enum/unacceptableStatus``
    /// the server's own message when its JSON body had `error`, `message` or `msg`.
    public let message: String?
    /// The HTTP status code, when a response arrived.
    public let statusCode: Int?
    /// The URL the request was for, when one was built.
    public let url: URL?
    /// The HTTP response, when one arrived.
    public let response: HTTPURLResponse?
    /// The response body, when one arrived (for status and decoding errors).
    public let data: Data?
    /// The error underneath: a `URLError`, `EncodingError`, `DecodingError`,
    /// ``ResponseMapperError`` or a mapper's own error.
    public let underlyingError: (any Error)?
    /// The backend's own code for a ``Kind-swift.enum/business`` failure, as text
    /// (`8888`, `"A0230"`).
    public let businessCode: String?
    /// The trace or request id the backend's envelope carried, for support tickets.
    public let traceId: String?
    /// The envelope's payload (e.g. its `data`) of a business failure, as JSON.
    public let payload: Data?
    /// Whether this error means "not signed in / token expired": HTTP 401, or a
    /// business code the host's envelope lists as unauthorized.
    public let isUnauthorized: Bool
    /// How many times the request was sent before it failed (retries and replays
    /// included); `nil` when the error was not made by a request.
    public internal(set) var attempts: Int?

    /// Creates an error. The library makes these; tests and custom mappers may too.
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
        self.kind = kind
        self.message = message
        self.statusCode = statusCode ?? response?.statusCode
        self.url = url ?? response?.url
        self.response = response
        self.data = data
        self.underlyingError = underlyingError
        self.businessCode = businessCode
        self.traceId = traceId
        self.payload = payload
        self.isUnauthorized = isUnauthorized ?? (self.statusCode == 401)
    }

    /// Whether the request was cancelled (by you, the operation or the queue).
    public var isCancelled: Bool { kind == .cancelled }

    /// Whether the transport gave up waiting (`URLError.timedOut`).
    public var isTimeout: Bool { urlError?.code == .timedOut }

    /// The `URLError` of a transport failure.
    public var urlError: URLError? { underlyingError as? URLError }

    /// The error as `NSError`, for Objective-C-minded callers.
    public var nsError: NSError { self as NSError }
}

extension NetworkError {
    static func cancelled(url: URL?) -> NetworkError {
        NetworkError(kind: .cancelled, url: url)
    }

    static func transport(_ error: any Error, url: URL?) -> NetworkError {
        NetworkError(kind: .transport, url: url, underlyingError: error)
    }

    static func decoding(_ error: any Error, response: NetworkResponse?) -> NetworkError {
        if let networkError = error as? NetworkError {
            return networkError
        }
        return NetworkError(
            kind: .decoding,
            message: DecodingDiagnostics.describe(error, body: response?.data),
            url: response?.request.url,
            response: response?.httpResponse,
            data: response?.data,
            underlyingError: error
        )
    }
}

extension NetworkError: LocalizedError {
    /// A sentence a person understands.
    public var errorDescription: String? {
        switch kind {
        case .invalidRequest:
            return "The request is invalid" + detail
        case .encoding:
            return "The request parameters could not be encoded" + detail
        case .transport:
            let reason = urlError.map { ": \($0.localizedDescription)" } ?? ""
            return "The network request failed\(reason)" + detail + attemptsNote
        case .unacceptableStatus:
            let code = statusCode.map { "\($0) \(HTTPURLResponse.localizedString(forStatusCode: $0))" } ?? "unknown"
            return "The server answered with status \(code)" + detail + attemptsNote
        case .decoding:
            return "The response could not be read" + detail
        case .cancelled:
            return "The request was cancelled."
        case .notConfigured:
            return "No base URL is configured: call HostConfiguration.baseURL(_:) or give the request an absolute URL."
        case .business:
            let code = businessCode.map { " (code \($0))" } ?? ""
            return "The server reported a failure\(code)" + detail + attemptsNote
        case .authentication:
            return "Authentication failed" + detail
        }
    }

    /// Why it failed, when known.
    public var failureReason: String? { message }

    private var attemptsNote: String {
        guard let attempts, attempts > 1 else { return "" }
        return " (after \(attempts) attempts)"
    }

    private var detail: String {
        guard let message, !message.isEmpty else { return "." }
        return ": \(message)"
    }
}

extension NetworkError: CustomNSError {
    /// `"EasyNetwork.NetworkError"`, the `NSError` domain of every `NetworkError`.
    public static var errorDomain: String { "EasyNetwork.NetworkError" }

    /// The ``Kind-swift.enum`` raw value.
    public var errorCode: Int { kind.rawValue }

    /// Description, status code, URL and underlying error, under the usual keys.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: errorDescription ?? ""]
        if let message { info[NSLocalizedFailureReasonErrorKey] = message }
        if let statusCode { info["statusCode"] = statusCode }
        if let businessCode { info["businessCode"] = businessCode }
        if let traceId { info["traceId"] = traceId }
        if let attempts { info["attempts"] = attempts }
        if let url { info[NSURLErrorFailingURLErrorKey] = url }
        if let underlyingError { info[NSUnderlyingErrorKey] = underlyingError as NSError }
        return info
    }
}

extension NetworkError: CustomStringConvertible {
    /// The localized description, prefixed with the kind.
    public var description: String {
        "NetworkError.\(kind): \(errorDescription ?? "")"
    }
}
