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
public struct AdHocRequest: BaseAPIRequest {
    /// Every field in one immutable object: a copy retains one reference, and the struct
    /// compiles no value witnesses of its own (its seven fields inline cost 2.3 KB of them).
    @usableFromInline let fields: Fields

    @usableFromInline final class Fields {
        let method: NetworkService.Method
        let api: String
        let query: NetworkService.QueryType
        let params: [String: Any]?
        let headers: [String: String]?
        let encodableBody: (any Encodable)?
        let multipartBody: MultipartFormData?

        @usableFromInline
        init(_ method: NetworkService.Method, _ api: String, _ query: NetworkService.QueryType, _ params: [String: Any]?,
             _ headers: [String: String]?, _ encodableBody: (any Encodable)?, _ multipartBody: MultipartFormData?) {
            self.method = method
            self.api = api
            self.query = query
            self.params = params
            self.headers = headers
            self.encodableBody = encodableBody
            self.multipartBody = multipartBody
        }
    }

    /// The HTTP method.
    public var method: NetworkService.Method { fields.method }
    /// The path, appended to the host's base URL; it may carry its own query.
    public var api: String { fields.api }
    /// Where ``params`` go: `.path` (the URL query), `.json` or `.form` (the body).
    public var query: NetworkService.QueryType { fields.query }
    /// The parameters, or `nil`.
    public var params: [String: Any]? { fields.params }
    /// This request's headers; they win over the host's default headers.
    public var headers: [String: String]? { fields.headers }
    /// A value sent as the JSON body with the host's `jsonEncoder`; ``params`` then go into
    /// the URL query.
    public var encodableBody: (any Encodable)? { fields.encodableBody }
    /// A `multipart/form-data` body; ``params`` become its first text fields.
    public var multipartBody: MultipartFormData? { fields.multipartBody }

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
        fields = Fields(method, api, encoding, params, headers, body, multipart)
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
