import Foundation

/// A request that names its response type, for new code: no mapper, no subclass.
///
/// ```swift
/// struct GetUser: APIRequest {
///     typealias Response = User            // any Decodable, Data, String or Void
///     let id: Int
///     var api: String { "/users/\(id)" }
/// }
///
/// queue.send(GetUser(id: 1)) { result in ... }     // Result<User, NetworkError>
/// let user = try await queue.send(GetUser(id: 1))
/// ```
///
/// `method` defaults to GET, `query` to `.path`, `params` and `headers` to `nil`.
/// `responseDecoder` is chosen from `Response`: `Decodable` types are decoded with the
/// host's `jsonDecoder` (after its envelope), `Data` and `String` are the raw body,
/// `Void` accepts any body. Give your own `responseDecoder` for anything else.
public protocol APIRequest: BaseAPIRequest {
    /// What the request produces.
    associatedtype Response
    /// How the response becomes a ``Response``.
    var responseDecoder: ResponseDecoder<Response> { get }
}

extension APIRequest {
    /// `GET`.
    @_alwaysEmitIntoClient
    public var method: NetworkService.Method { .get }
    /// `.path`: parameters in the URL query.
    @_alwaysEmitIntoClient
    public var query: NetworkService.QueryType { .path }
    /// No parameters.
    @_alwaysEmitIntoClient
    public var params: [String: Any]? { nil }
    /// No headers of its own.
    @_alwaysEmitIntoClient
    public var headers: [String: String]? { nil }
}

extension APIRequest where Response: Decodable {
    /// Decodes the payload with the host's `jsonDecoder`.
    @_alwaysEmitIntoClient
    public var responseDecoder: ResponseDecoder<Response> { .decodable() }
}

extension APIRequest where Response == Data {
    /// The raw body.
    @_alwaysEmitIntoClient
    public var responseDecoder: ResponseDecoder<Data> { .data }
}

extension APIRequest where Response == String {
    /// The body as text in its charset.
    @_alwaysEmitIntoClient
    public var responseDecoder: ResponseDecoder<String> { .string }
}

extension APIRequest where Response == Void {
    /// Nothing; the envelope, if any, is still judged.
    @_alwaysEmitIntoClient
    public var responseDecoder: ResponseDecoder<Void> { .void }
}
