import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds the `URLRequest` for a ``BaseAPIRequest`` on a host: URL, query, body,
/// merged headers and timeout. Pure: it touches no network and no shared state.
package struct URLRequestBuilder {
    let snapshot: HostConfiguration.SettingsSnapshot

    package init(configuration: HostConfiguration) {
        snapshot = configuration.snapshot()
    }

    /// The host's settings when the request started.
    var settings: HostConfiguration.Settings {
        _read { yield snapshot.settings }
    }

    /// The multipart form `request` sends, or `nil`. Read it once per request and give
    /// that value to ``build(_:multipart:)`` and to the body: a computed `multipartBody`
    /// makes a new form, with a new random boundary, on every read.
    static func multipartForm(of request: BaseAPIRequest) -> MultipartFormData? {
        request.method.sendsParametersInQuery ? nil : request.multipartBody
    }

    package func build(_ request: BaseAPIRequest) -> Result<URLRequest, NetworkError> {
        build(request, multipart: Self.multipartForm(of: request))
    }

    /// The request, with `multipart` (read by ``multipartForm(of:)``) naming the
    /// Content-Type boundary. Its `timeoutInterval` is the idle timeout itself when
    /// `exactTimeout` and the session can keep it (``NetworkService/sessionKeepsIdle(_:)``),
    /// else only a backstop behind the exact deadline each attempt keeps.
    func build(_ request: BaseAPIRequest, multipart: MultipartFormData?, exactTimeout: Bool = false) -> Result<URLRequest, NetworkError> {
        let method = request.method
        let params = request.params
        let multipart = method.sendsParametersInQuery ? nil : multipart
        let encodable = method.sendsParametersInQuery || multipart != nil ? nil : request.encodableBody
        let queryParams = multipart != nil ? nil
            : (request.query == .path || method.sendsParametersInQuery || encodable != nil) ? params : nil

        let urlResult: Result<URL, NetworkError>
        if let absolute = request.absoluteURL {
            #if canImport(FoundationNetworking)
            // Failed with -1000 by URLSession on Linux: refused naming why (see HostSettings).
            if HostSettings.isIPv6Literal(absolute) {
                return .failure(Self.invalidURL(HostSettings.refusedIPv6Literal(absolute.absoluteString), url: absolute))
            }
            #endif
            urlResult = Self.url(absolute, addingQuery: queryParams)
        } else {
            switch settings.resolvedBaseURL {
            case .success(let base): urlResult = Self.url(base: base, api: request.api, query: queryParams, memo: settings.urlMemo)
            case .failure(let error): return .failure(error)
            }
        }
        let url: URL
        switch urlResult {
        case .success(let value): url = value
        case .failure(let error): return .failure(error)
        }

        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        // Set, not given to the initializer: swift-corelibs-foundation honours only a
        // timeout set so (`isTimeoutIntervalSet`), else the session configuration's.
        urlRequest.timeoutInterval = NetworkService.requestTimeout(forIdle: request.timeout ?? settings.timeout, exact: exactTimeout)
        if method != .get {
            // GET is the default; each setter copies the request on Linux.
            urlRequest.httpMethod = method.rawValue
        }

        // Checked before they reach `setValue`, which on Linux drops a value holding CR or LF.
        if let refused = settings.defaultHeadersFailure ?? settings.sessionHeadersFailure {
            return .failure(refused)
        }
        var headers = HeaderFields(settings.defaultHeaders)
        if let refused = HeaderFieldCheck.failure(in: request.headers, url: url, source: "the request's headers") {
            return .failure(refused)
        }
        headers.merge(request.headers ?? [:])

        if let multipart {
            // The parameters become text fields when the body is written: checked now.
            if let params, let failure = Self.check(params, url: url) {
                return .failure(failure)
            }
            headers.set("Content-Type", multipart.contentType)
        } else if let encodable {
            switch JSONBody.of(encodable, encoder: settings.jsonEncoder, url: url) {
            case .success(let body): urlRequest.httpBody = body
            case .failure(let error): return .failure(error)
            }
            headers.setIfAbsent("Content-Type", "application/json")
        } else if !method.sendsParametersInQuery, let params {
            switch request.query {
            case .path:
                break
            case .json:
                switch JSONBody.of(params, url: url) {
                case .success(let body): urlRequest.httpBody = body
                case .failure(let error): return .failure(error)
                }
                headers.setIfAbsent("Content-Type", "application/json")
            case .form:
                // `data(using:)`, not `Data(string.utf8)`: Foundation's own code, where the
                // generic initializer would compile a `Data` builder (about 4 KB) into every program.
                var failure: NetworkError?
                let form = QueryStringEncoder.encode(params, url: url, failure: &failure)
                if let failure { return .failure(failure) }
                urlRequest.httpBody = form.data(using: .utf8) ?? Data()
                headers.setIfAbsent("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
            }
        }
        headers.apply(to: &urlRequest)
        return .success(urlRequest)
    }

    /// `base` + `api`: the api path is appended to the base path with exactly one
    /// slash between them; a query in `api` is kept, then `query` is added.
    ///
    /// Built as text and parsed once with `URL(string:)`, which answers `nil` for a bad
    /// string: `URLComponents`' percent-encoded setters stop the process instead.
    static func url(base: URL, api: String, query: [String: Any]?, memo: URLMemo? = nil) -> Result<URL, NetworkError> {
        var encodedQuery: String?
        if let query {
            var failure: NetworkError?
            encodedQuery = QueryStringEncoder.encode(query, url: base, failure: &failure)
            if let failure { return .failure(failure) }
        }
        // The api's length first, so that no api and query pair can spell another's key.
        let key = String(api.utf8.count) + ":" + api + (encodedQuery ?? "")
        if let known = memo?.url(for: key) {
            return .success(known)
        }
        // Searched byte-wise: these run for every request.
        let question = UInt8(ascii: "?"), slash = UInt8(ascii: "/")
        let baseString = base.absoluteString
        var head = Substring(baseString)
        head = head[..<scan(head, for: UInt8(ascii: "#"), equal: true)]
        var baseQuery: Substring?
        let mark = scan(head, for: question, equal: true)
        if mark != head.endIndex {
            baseQuery = head[head.utf8.index(after: mark)...]
            head = head[..<mark]
        }
        var apiPath = Substring(api)
        var apiQuery: Substring?
        let apiMark = scan(apiPath, for: question, equal: true)
        if apiMark != apiPath.endIndex {
            apiQuery = apiPath[apiPath.utf8.index(after: apiMark)...]
            apiPath = apiPath[..<apiMark]
        }
        if !apiPath.isEmpty, !head.isEmpty {
            let last = head.utf8.index(before: head.endIndex)
            if head.utf8[last] == slash { head = head[..<last] }
        }
        var result = String(head)
        if !apiPath.isEmpty {
            let encoded = Substring(PercentEncoding.encode(String(apiPath), allowed: PercentEncoding.path, keepingEscapes: true))
            result += "/"
            result += encoded[scan(encoded, for: slash, equal: false)...]
        }
        var hasQuery = false
        appendQuery(baseQuery.map(String.init), to: &result, hasQuery: &hasQuery)
        appendQuery(apiQuery.map { PercentEncoding.encode(String($0), allowed: PercentEncoding.query, keepingEscapes: true) },
                    to: &result, hasQuery: &hasQuery)
        appendQuery(encodedQuery, to: &result, hasQuery: &hasQuery)
        guard let url = URL(string: result), url.scheme != nil else {
            return .failure(invalidURL("'" + api + "' does not make a valid URL with base '" + base.description + "'", url: base))
        }
        memo?.remember(url, for: key)
        return .success(url)
    }

    /// Appends `part`, when it is not empty, to the query of `url` (`?` before the first, `&` before the others).
    @inline(never)
    private static func appendQuery(_ part: String?, to url: inout String, hasQuery: inout Bool) {
        guard let part, !part.isEmpty else { return }
        url += hasQuery ? "&" : "?"
        url += part
        hasQuery = true
    }

    /// The first index of `text` whose UTF-8 byte is `byte` (or, with `equal` false, is
    /// not), or `text.endIndex`. One plain loop for every search of the builders, instead
    /// of a specialization of the standard library's searches per view and predicate.
    @inline(never)
    private static func scan(_ text: Substring, for byte: UInt8, equal: Bool) -> Substring.Index {
        let utf8 = text.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex, (utf8[index] == byte) != equal {
            utf8.formIndex(after: &index)
        }
        return index
    }

    /// The error of a URL that does not parse (cold: one copy for both builders).
    @inline(never)
    private static func invalidURL(_ message: String, url: URL) -> NetworkError {
        NetworkError(kind: .invalidRequest, message: message, url: url)
    }

    /// `url` with `query` appended to its own query.
    static func url(_ url: URL, addingQuery query: [String: Any]?) -> Result<URL, NetworkError> {
        guard let query, !query.isEmpty else { return .success(url) }
        let absolute = url.absoluteString
        var head = Substring(absolute)
        var fragment = ""
        let hash = scan(head, for: UInt8(ascii: "#"), equal: true)
        if hash != head.endIndex {
            fragment = String(head[hash...])
            head = head[..<hash]
        }
        let separator = scan(head, for: UInt8(ascii: "?"), equal: true) == head.endIndex ? "?" : "&"
        var failure: NetworkError?
        let encodedQuery = QueryStringEncoder.encode(query, url: url, failure: &failure)
        if let failure { return .failure(failure) }
        guard let result = URL(string: String(head) + separator + encodedQuery + fragment) else {
            return .failure(invalidURL("'" + url.description + "' is not a valid URL", url: url))
        }
        return .success(result)
    }

    /// The error of the first value of `params` a multipart body cannot carry as a text
    /// field (for `url`), if any.
    static func check(_ params: [String: Any], url: URL) -> NetworkError? {
        var leaves: [(name: String, value: String)] = []
        return ParameterWalker.walk(params, json: false, naming: ParameterWalker.unnamed, lenient: false, url: url, into: &leaves).failure
    }
}
