import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds the `URLRequest` for a ``BaseAPIRequest`` on a host: URL, query, body,
/// merged headers and timeout. Pure: it touches no network and no shared state.
struct URLRequestBuilder {
    let settings: HostConfiguration.Settings

    init(configuration: HostConfiguration) {
        settings = configuration.snapshot()
    }

    func build(_ request: BaseAPIRequest) -> Result<URLRequest, NetworkError> {
        let method = request.method
        let params = request.params
        let encodable = method.sendsParametersInQuery ? nil : request.encodableBody
        let queryParams = (request.query == .path || method.sendsParametersInQuery || encodable != nil) ? params : nil

        let urlResult: Result<URL, NetworkError>
        if let absolute = request.absoluteURL {
            urlResult = Self.url(absolute, addingQuery: queryParams)
        } else {
            urlResult = settings.resolvedBaseURL.flatMap { Self.url(base: $0, api: request.api, query: queryParams) }
        }
        let url: URL
        switch urlResult {
        case .success(let value): url = value
        case .failure(let error): return .failure(error)
        }

        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = method.rawValue
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        urlRequest.timeoutInterval = request.timeout ?? settings.timeout

        var headers = HeaderFields(settings.defaultHeaders)
        headers.merge(request.headers ?? [:])

        if let encodable {
            switch Self.encodedBody(encodable, encoder: settings.jsonEncoder, url: url) {
            case .success(let body): urlRequest.httpBody = body
            case .failure(let error): return .failure(error)
            }
            headers.setIfAbsent("Content-Type", "application/json")
        } else if !method.sendsParametersInQuery, let params {
            switch request.query {
            case .path:
                break
            case .json:
                switch Self.jsonBody(params, url: url) {
                case .success(let body): urlRequest.httpBody = body
                case .failure(let error): return .failure(error)
                }
                headers.setIfAbsent("Content-Type", "application/json")
            case .form:
                urlRequest.httpBody = Data(QueryStringEncoder().encode(params).utf8)
                headers.setIfAbsent("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
            }
        }
        for (name, value) in headers.fields {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        return .success(urlRequest)
    }

    /// `base` + `api`: the api path is appended to the base path with exactly one
    /// slash between them; a query in `api` is kept, then `query` is added.
    static func url(base: URL, api: String, query: [String: Any]?) -> Result<URL, NetworkError> {
        if let url = simpleURL(base: base, api: api, query: query) {
            return .success(url)
        }
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true) else {
            return .failure(NetworkError(kind: .invalidRequest, message: "'\(base)' is not a valid base URL", url: base))
        }
        var apiPath = api
        var apiQuery: String?
        if let mark = api.firstIndex(of: "?") {
            apiPath = String(api[..<mark])
            apiQuery = String(api[api.index(after: mark)...])
        }
        guard let encodedAPI = apiPath.addingPercentEncoding(withAllowedCharacters: pathAllowed) else {
            return .failure(NetworkError(kind: .invalidRequest, message: "'\(api)' is not a valid API path", url: base))
        }
        let basePath = components.percentEncodedPath
        let trimmedBase = basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath
        let trimmedAPI = encodedAPI.drop { $0 == "/" }
        components.percentEncodedPath = trimmedAPI.isEmpty && apiPath.isEmpty ? basePath : trimmedBase + "/" + trimmedAPI
        let queryParts = [components.percentEncodedQuery, apiQuery, query.map { QueryStringEncoder().encode($0) }]
            .compactMap { $0 }
            .filter { !$0.isEmpty }
        components.percentEncodedQuery = queryParts.isEmpty ? nil : queryParts.joined(separator: "&")
        guard let url = components.url else {
            return .failure(NetworkError(kind: .invalidRequest, message: "'\(api)' does not make a valid URL with base '\(base)'", url: base))
        }
        return .success(url)
    }

    /// The common case without `URLComponents`: a base with no query or fragment and
    /// an api made only of characters a path may hold as they are. Gives the same URL
    /// as the general path; `nil` sends the caller there.
    private static func simpleURL(base: URL, api: String, query: [String: Any]?) -> URL? {
        guard !api.isEmpty, api.utf8.allSatisfy({ plainPathBytes.contains($0) }) else { return nil }
        let baseString = base.absoluteString
        guard !baseString.utf8.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else { return nil }
        var string = baseString.hasSuffix("/") ? String(baseString.dropLast()) : baseString
        string += "/"
        string += api.drop { $0 == "/" }
        if let query, !query.isEmpty {
            string += "?"
            string += QueryStringEncoder().encode(query)
        }
        return URL(string: string)
    }

    /// Bytes an api path may hold unencoded on the fast path.
    private static let plainPathBytes: Set<UInt8> = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/".utf8
    )

    /// Characters left as they are in an api path: RFC 3986 path characters and `%`,
    /// so an already percent-encoded path is kept.
    private static let pathAllowed: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.insert("%")
        return allowed
    }()

    /// `url` with `query` appended to its own query.
    static func url(_ url: URL, addingQuery query: [String: Any]?) -> Result<URL, NetworkError> {
        guard let query, !query.isEmpty else { return .success(url) }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return .failure(NetworkError(kind: .invalidRequest, message: "'\(url)' is not a valid URL", url: url))
        }
        let encoded = QueryStringEncoder().encode(query)
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + encoded
        } else {
            components.percentEncodedQuery = encoded
        }
        guard let result = components.url else {
            return .failure(NetworkError(kind: .invalidRequest, message: "'\(url)' is not a valid URL", url: url))
        }
        return .success(result)
    }

    /// `value` encoded by `encoder`, or an encoding error naming what failed.
    static func encodedBody(_ value: any Encodable, encoder: JSONEncoder, url: URL) -> Result<Data, NetworkError> {
        do {
            return .success(try encoder.encode(value))
        } catch {
            return .failure(NetworkError(
                kind: .encoding,
                message: "cannot encode \(type(of: value)): " + DecodingDiagnostics.reason(for: error),
                url: url,
                underlyingError: error
            ))
        }
    }

    /// JSON for `params`, or an encoding error; checked first so that a value
    /// JSONSerialization cannot write never raises an exception.
    static func jsonBody(_ params: [String: Any], url: URL) -> Result<Data, NetworkError> {
        guard JSONSerialization.isValidJSONObject(params), JSONValidator.isWritable(params) else {
            return .failure(NetworkError(
                kind: .encoding,
                message: "the parameters hold a value JSON cannot represent (only strings, numbers that are finite, booleans, null, arrays and dictionaries with string keys)",
                url: url
            ))
        }
        do {
            return .success(try JSONSerialization.data(withJSONObject: params, options: [.sortedKeys]))
        } catch {
            return .failure(NetworkError(kind: .encoding, message: error.localizedDescription, url: url, underlyingError: error))
        }
    }
}
