import Foundation

extension NetworkService {
    /// The HTTP method of a request.
    public enum Method: String, Sendable, CaseIterable {
        /// `GET`: reads a resource. Parameters go into the URL query.
        case get = "GET"
        /// `POST`: creates or submits.
        case post = "POST"
        /// `PUT`: replaces a resource.
        case put = "PUT"
        /// `DELETE`: removes a resource.
        case delete = "DELETE"
        /// `PATCH`: changes part of a resource.
        case patch = "PATCH"
        /// `HEAD`: like GET, without a body in the response. Parameters go into the URL query.
        case head = "HEAD"
        /// `OPTIONS`: asks what the server allows.
        case options = "OPTIONS"

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
