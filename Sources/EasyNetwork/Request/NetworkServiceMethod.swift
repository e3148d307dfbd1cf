import Foundation

extension NetworkService {
    /// The HTTP method of a request.
    ///
    /// Its ``rawValue`` (`"GET"`), ``init(rawValue:)`` and ``allCases`` are plain members,
    /// compiled into the program that uses them, not conformances to `RawRepresentable` and
    /// `CaseIterable` that every program would carry (about 1.4 KB).
    public enum Method: Sendable {
        /// `GET`: reads a resource. Parameters go into the URL query.
        case get
        /// `POST`: creates or submits.
        case post
        /// `PUT`: replaces a resource.
        case put
        /// `DELETE`: removes a resource.
        case delete
        /// `PATCH`: changes part of a resource.
        case patch
        /// `HEAD`: like GET, without a body in the response. Parameters go into the URL query.
        case head
        /// `OPTIONS`: asks what the server allows.
        case options

        /// Every method, in the order declared.
        @_alwaysEmitIntoClient
        public static var allCases: [Method] { [.get, .post, .put, .delete, .patch, .head, .options] }

        /// The method's name as sent (`"GET"`).
        @_alwaysEmitIntoClient
        public var rawValue: String {
            switch self {
            case .get: return "GET"
            case .post: return "POST"
            case .put: return "PUT"
            case .delete: return "DELETE"
            case .patch: return "PATCH"
            case .head: return "HEAD"
            case .options: return "OPTIONS"
            }
        }

        /// The method named `rawValue` (`"GET"`, case-sensitive), or `nil`.
        @_alwaysEmitIntoClient
        public init?(rawValue: String) {
            guard let method = Method.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = method
        }

        /// Whether repeating the request has the same effect as sending it once
        /// (RFC 9110 §9.2.2). Retries and request sharing only touch idempotent methods.
        @_alwaysEmitIntoClient
        public var isIdempotent: Bool {
            switch self {
            case .get, .put, .delete, .head, .options: return true
            case .post, .patch: return false
            }
        }

        /// Whether the method carries no request body in EasyNetwork: `GET` and `HEAD`
        /// put their parameters into the URL query whatever the ``NetworkService/QueryType``.
        public var sendsParametersInQuery: Bool {
            self == .get || self == .head
        }
    }
}
