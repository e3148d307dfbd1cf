import Foundation

extension NetworkService {
    /// How a request's `params` are sent.
    public enum QueryType: Sendable {
        /// A JSON body (`Content-Type: application/json` unless the request sets one).
        /// For `GET` and `HEAD`, which carry no body, the parameters go into the URL query.
        case json
        /// The URL query string, percent-encoded (see ``QueryStringEncoder``).
        case path
        /// An `application/x-www-form-urlencoded` body, encoded like the query string.
        case form
    }
}
