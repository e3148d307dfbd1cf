import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A successful HTTP exchange: the request as sent, the response and its body.
/// Mappers and transforms receive it before anything is decoded.
public struct NetworkResponse: @unchecked Sendable {
    /// The request as it was sent.
    public let request: URLRequest
    /// The HTTP response.
    public let httpResponse: HTTPURLResponse
    /// The body; empty for HEAD, 204 and empty responses.
    public let data: Data

    /// Creates a response; the library makes these, tests may too.
    public init(request: URLRequest, httpResponse: HTTPURLResponse, data: Data) {
        self.request = request
        self.httpResponse = httpResponse
        self.data = data
    }

    /// The HTTP status code.
    public var statusCode: Int { httpResponse.statusCode }

    /// The value of a response header, name compared case-insensitively.
    public func header(_ name: String) -> String? {
        httpResponse.value(forHTTPHeaderField: name)
    }

    /// The body as JSON (`[String: Any]`, `[Any]`, or a fragment), `nil` when empty.
    /// - Throws: ``NetworkError`` of kind ``NetworkError/Kind-swift.enum/decoding``
    ///   with a snippet of the body when it is not JSON.
    public func jsonObject() throws -> Any? {
        guard !data.isEmpty else { return nil }
        do {
            return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw NetworkError(
                kind: .decoding,
                message: "the body is not valid JSON." + (DecodingDiagnostics.snippet(of: data).map { " Body: \($0)" } ?? ""),
                url: request.url,
                response: httpResponse,
                data: data,
                underlyingError: error
            )
        }
    }

    /// The body decoded as `type` with `decoder`.
    /// - Throws: ``NetworkError`` of kind ``NetworkError/Kind-swift.enum/decoding``
    ///   that names the type, the key path and a snippet of the body.
    public func decode<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        do {
            return try decoder.decode(T.self, from: data)
        } catch {
            throw NetworkError(
                kind: .decoding,
                message: "cannot decode \(T.self): " + DecodingDiagnostics.describe(error, body: data),
                url: request.url,
                response: httpResponse,
                data: data,
                underlyingError: error
            )
        }
    }
}
