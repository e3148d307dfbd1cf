import Foundation

/// A request made on the spot, for a one-off call (a health check, a feature flag) that
/// does not deserve a type of its own. It is a ``BaseAPIRequest`` like any other: it goes
/// through the same pipeline, with the host's headers, token, interceptors, retries,
/// validation and envelope, and the same guarantees (one callback, every path finishes).
///
/// ```swift
/// let flags = try await queue.send(.get("/flags", query: ["v": "2"]), as: Flags.self, configuration: host)
/// try await queue.send(.post("/events", json: ["name": "opened"]), configuration: host)
/// ```
///
/// `as:` names the result as a typed request's `Response` does: a `Decodable` type (with
/// the host's `jsonDecoder`, after its envelope), `Data` (the raw body) or `String` (the
/// body as text); without `as:` the result is `Void`. For any other result (`.json`, a
/// mapper), give the request to a ``RequestOperation``. Members it does not set have the
/// defaults of ``BaseAPIRequest``.
///
public final class AdHocRequest: BaseAPIRequest {
    // One immutable object, no wrapper: a copy retains one reference, the core compiles no
    // value witnesses for it (seven fields inline cost 2.3 KB of them) and no second type.

    /// The HTTP method.
    public let method: NetworkService.Method
    /// The path, appended to the host's base URL; it may carry its own query.
    public let api: String
    /// Where ``params`` go: `.path` (the URL query), `.json` or `.form` (the body).
    public let query: NetworkService.QueryType
    /// The parameters, or `nil`.
    public let params: [String: Any]?
    /// This request's headers; they win over the host's default headers.
    public let headers: [String: String]?
    /// A value sent as the JSON body with the host's `jsonEncoder`; ``params`` then go into
    /// the URL query.
    public let encodableBody: (any Encodable)?
    /// A `multipart/form-data` body; ``params`` become its first text fields.
    public let multipartBody: MultipartFormData?

    /// A request of any method and body.
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - api: the path, appended to the host's base URL.
    ///   - params: the parameters.
    ///   - encoding: where `params` go: `.path` (the default: the URL query), `.json` or
    ///     `.form` (the body). `GET` and `HEAD` always put them in the query.
    ///   - headers: this request's headers.
    ///   - body: an `Encodable` JSON body (then `params` go into the query).
    ///   - multipart: a `multipart/form-data` body (then `params` become text fields).
    @_alwaysEmitIntoClient
    public init(
        _ method: NetworkService.Method,
        _ api: String,
        params: [String: Any]? = nil,
        encoding: NetworkService.QueryType = .path,
        headers: [String: String]? = nil,
        body: (any Encodable)? = nil,
        multipart: MultipartFormData? = nil
    ) {
        self.method = method
        self.api = api
        query = encoding
        self.params = params
        self.headers = headers
        encodableBody = body
        multipartBody = multipart
    }

    /// `GET api`, with `query` in the URL query.
    @_alwaysEmitIntoClient
    public static func get(_ api: String, query: [String: Any]? = nil, headers: [String: String]? = nil) -> AdHocRequest {
        AdHocRequest(.get, api, params: query, headers: headers)
    }

    /// `POST api`, with `json` as a JSON body.
    @_alwaysEmitIntoClient
    public static func post(_ api: String, json: [String: Any]? = nil, headers: [String: String]? = nil) -> AdHocRequest {
        AdHocRequest(.post, api, params: json, encoding: .json, headers: headers)
    }
}
