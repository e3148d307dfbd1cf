import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds the `URLRequest` for a ``BaseAPIRequest`` on a host: URL, query, body,
/// merged headers and timeout. Pure: it touches no network and no shared state.
struct URLRequestBuilder {
    let baseURL: Result<URL, NetworkError>
    let settings: HostConfiguration.Settings

    init(configuration: HostConfiguration) {
        baseURL = configuration.resolvedBaseURL()
        settings = configuration.snapshot()
    }

    func build(_ request: BaseAPIRequest) -> Result<URLRequest, NetworkError> {
        let method = request.method
        let params = request.params
        let queryParams = (request.query == .path || method.sendsParametersInQuery) ? params : nil

        let urlResult: Result<URL, NetworkError>
        if let absolute = request.absoluteURL {
            urlResult = Self.url(absolute, addingQuery: queryParams)
        } else {
            urlResult = baseURL.flatMap { Self.url(base: $0, api: request.api, query: queryParams) }
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

        if !method.sendsParametersInQuery, let params {
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
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true) else {
            return .failure(NetworkError(kind: .invalidRequest, message: "'\(base)' is not a valid base URL", url: base))
        }
        var apiPath = api
        var apiQuery: String?
        if let mark = api.firstIndex(of: "?") {
            apiPath = String(api[..<mark])
            apiQuery = String(api[api.index(after: mark)...])
        }
        var allowed = CharacterSet.urlPathAllowed
        allowed.insert("%")
        guard let encodedAPI = apiPath.addingPercentEncoding(withAllowedCharacters: allowed) else {
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
