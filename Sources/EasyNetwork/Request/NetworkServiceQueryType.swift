import Foundation

extension NetworkService {
    /// How a request's `params` are sent.
    ///
    /// A struct of one byte with a static member per choice, not an enum: an enum carries
    /// value witnesses and a `Hashable` conformance in every program (911 bytes more).
    /// Compare with `==`; a `switch` over it needs a `default`.
    public struct QueryType: Sendable, Equatable {
        /// 0 `json`, 1 `path`, 2 `form`.
        @usableFromInline let code: UInt8

        /// The choice numbered `code`.
        @_alwaysEmitIntoClient
        init(code: UInt8) {
            self.code = code
        }

        /// A JSON body (`Content-Type: application/json` unless the request sets one).
        /// For `GET` and `HEAD`, which carry no body, the parameters go into the URL query.
        @_alwaysEmitIntoClient public static var json: QueryType { QueryType(code: 0) }
        /// The URL query string, percent-encoded (see ``QueryStringEncoder``).
        @_alwaysEmitIntoClient public static var path: QueryType { QueryType(code: 1) }
        /// An `application/x-www-form-urlencoded` body, encoded like the query string.
        @_alwaysEmitIntoClient public static var form: QueryType { QueryType(code: 2) }
    }
}
