import Foundation

extension NetworkService {
    /// The HTTP method of a request.
    ///
    /// Its ``rawValue`` (`"GET"`), ``init(rawValue:)`` and ``allCases`` are plain members,
    /// compiled into the program that uses them, not conformances to `RawRepresentable` and
    /// `CaseIterable` that every program would carry (about 1.4 KB). A struct of one byte
    /// with a static member per method, not an enum: an enum carries value witnesses and a
    /// `Hashable` conformance in every program (743 bytes more). Compare with `==`; a
    /// `switch` over it needs a `default`.
    public struct Method: Sendable, Equatable {
        /// The method's position in ``allCases``.
        @usableFromInline let code: UInt8

        /// The method at `code` in ``allCases``.
        @_alwaysEmitIntoClient
        init(code: UInt8) {
            self.code = code
        }

        /// `GET`: reads a resource. Parameters go into the URL query.
        @_alwaysEmitIntoClient public static var get: Method { Method(code: 0) }
        /// `POST`: creates or submits.
        @_alwaysEmitIntoClient public static var post: Method { Method(code: 1) }
        /// `PUT`: replaces a resource.
        @_alwaysEmitIntoClient public static var put: Method { Method(code: 2) }
        /// `DELETE`: removes a resource.
        @_alwaysEmitIntoClient public static var delete: Method { Method(code: 3) }
        /// `PATCH`: changes part of a resource.
        @_alwaysEmitIntoClient public static var patch: Method { Method(code: 4) }
        /// `HEAD`: like GET, without a body in the response. Parameters go into the URL query.
        @_alwaysEmitIntoClient public static var head: Method { Method(code: 5) }
        /// `OPTIONS`: asks what the server allows.
        @_alwaysEmitIntoClient public static var options: Method { Method(code: 6) }

        /// Every method, in the order declared.
        @_alwaysEmitIntoClient
        public static var allCases: [Method] { [.get, .post, .put, .delete, .patch, .head, .options] }

        /// The method's name as sent (`"GET"`).
        @_alwaysEmitIntoClient
        public var rawValue: String {
            switch code {
            case 0: return "GET"
            case 1: return "POST"
            case 2: return "PUT"
            case 3: return "DELETE"
            case 4: return "PATCH"
            case 5: return "HEAD"
            default: return "OPTIONS"
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
            code != 1 && code != 4  // POST, PATCH
        }

        /// Whether the method carries no request body in EasyNetwork: `GET` and `HEAD`
        /// put their parameters into the URL query whatever the ``NetworkService/QueryType``.
        @_alwaysEmitIntoClient  // one comparison: compiled into each caller, the pipeline too
        public var sendsParametersInQuery: Bool {
            code == 0 || code == 5  // GET, HEAD
        }
    }
}
