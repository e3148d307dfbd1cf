import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The pipeline's first stage, under its stage name (one type, no second namespace).
typealias BuildStage = URLRequestBuilder

/// Builds the `URLRequest` for a ``BaseAPIRequest`` on a host: URL, query, body,
/// merged headers and timeout. Pure: it touches no network and no shared state.
/// As ``BuildStage`` it is also the pipeline's first stage (``run(_:builder:exactTimeout:completion:)``).
package struct URLRequestBuilder {
    let settings: HostSettings

    /// A builder with the host's settings as they are now.
    package init(configuration: HostConfiguration) {
        settings = configuration.snapshot()
    }

    /// A builder with settings taken before (a request's exchange builds with the snapshot
    /// its timeouts and interceptors came from, so one request sees one set of settings).
    init(settings: HostSettings) {
        self.settings = settings
    }

    /// The multipart form `request` sends, or `nil`. Read it once per request and give
    /// that value to ``build(_:multipart:exactTimeout:)`` and to the body: a computed `multipartBody`
    /// makes a new form, with a new random boundary, on every read.
    static func multipartForm(of request: BaseAPIRequest) -> MultipartFormData? {
        request.method.sendsParametersInQuery ? nil : request.multipartBody
    }

    /// The request, with `form` (read by ``multipartForm(of:)``) naming the
    /// Content-Type boundary. Its `timeoutInterval` is the idle timeout itself when
    /// `exactTimeout` and the session can keep it (``NetworkService/sessionKeepsIdle(_:)``),
    /// else only a backstop behind the exact deadline each attempt keeps.
    package func build(_ request: BaseAPIRequest, multipart form: MultipartFormData?, exactTimeout: Bool) throws(NetworkError) -> URLRequest {
        let method = request.method
        let inQuery = method.sendsParametersInQuery
        let params = request.params
        let form = inQuery ? nil : form
        let encodable = inQuery || form != nil ? nil : request.encodableBody
        // Where `params` go when there is no form: the URL query, or the body `query` names.
        var query = request.query
        if inQuery || encodable != nil { query = .path }
        let url = try self.url(of: request, query: form == nil && query == .path ? params : nil)

        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        // Set, not given to the initializer: swift-corelibs-foundation honours only a
        // timeout set so (`isTimeoutIntervalSet`), else the session configuration's.
        urlRequest.timeoutInterval = NetworkService.requestTimeout(forIdle: request.timeout ?? settings.timeout, exact: exactTimeout)
        if method != .get {
            // GET is the default; each setter copies the request on Linux.
            urlRequest.httpMethod = method.rawValue
        }
        try setHeaders(request.headers, on: &urlRequest, url: url)
        try setBody(params, form: form, encodable: encodable, query: query, on: &urlRequest, url: url)
        return urlRequest
    }

    /// The URL of `request`: its absolute URL, or the host's base URL with its `api`, with
    /// `query` added. One step of ``build(_:multipart:exactTimeout:)``, compiled into it (a
    /// function of its own cost more than the values it kept apart).
    @inline(__always)
    private func url(of request: BaseAPIRequest, query: [String: Any]?) throws(NetworkError) -> URL {
        guard let absolute = request.absoluteURL else {
            return try Self.url(base: settings.resolvedBaseURL.get(), api: request.api, query: query, memo: settings.urlMemo)
        }
        #if canImport(FoundationNetworking)
        // Failed with -1000 by URLSession on Linux: refused naming why (see HostSettings).
        if HostSettings.isIPv6Literal(absolute) {
            throw Self.invalidURL(HostSettings.refusedIPv6Literal(absolute.absoluteString), url: absolute)
        }
        #endif
        return try Self.url(base: absolute, api: nil, query: query)
    }

    /// Checks and sets the host's and the request's `headers` (compiled into the build).
    @inline(__always)
    private func setHeaders(_ headers: [String: String]?, on urlRequest: inout URLRequest, url: URL) throws(NetworkError) {
        // Checked before they reach `setValue`, which on Linux drops a value holding CR or LF.
        if let refused = settings.defaultHeadersFailure ?? settings.sessionHeadersFailure {
            throw refused
        }
        if let refused = HeaderFieldCheck.failure(in: headers, url: url, source: "the request's headers") {
            throw refused
        }
        // `setValue` compares names case-insensitively: the request's values win over the
        // host's; within one dictionary, names that differ only in case are set in
        // ascending order (the last value wins; the name keeps the spelling set first).
        Self.set(settings.defaultHeaders, on: &urlRequest)
        Self.set(headers, on: &urlRequest)
    }

    /// Sets the body `params` make (or checks them, for a `form`, which writes them), or
    /// the `encodable` body, with its Content-Type unless the request set one.
    @inline(never)
    private func setBody(
        _ params: [String: Any]?, form: MultipartFormData?, encodable: (any Encodable)?, query: NetworkService.QueryType,
        on urlRequest: inout URLRequest, url: URL
    ) throws(NetworkError) {
        let contentType: String
        if let form {
            // The parameters become text fields when the body is written: checked now (by
            // the query's rules, which the fields follow).
            if let params {
                _ = try QueryStringEncoder.encode(params, url: url)
            }
            urlRequest.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
            return
        } else if encodable != nil || (params != nil && query == .json) {
            // The encodable body, else the parameters (`params` then went to the URL query).
            urlRequest.httpBody = try JSONBody.of(params ?? [:], encodable, encoder: settings.jsonEncoder, url: url)
            contentType = "application/json"
        } else if let params, query != .path {
            // `data(using:)`, not `Data(string.utf8)`: Foundation's own code, where the
            // generic initializer would compile a `Data` builder (about 4 KB) into every program.
            urlRequest.httpBody = try QueryStringEncoder.encode(params, url: url).data(using: .utf8) ?? Data()
            contentType = "application/x-www-form-urlencoded; charset=utf-8"
        } else {
            return
        }
        if urlRequest.value(forHTTPHeaderField: "Content-Type") == nil {
            urlRequest.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
    }

    /// Sets `fields` on `request`, names in ascending order.
    @inline(never)
    private static func set(_ fields: [String: String]?, on request: inout URLRequest) {
        guard let fields, !fields.isEmpty else { return }
        for name in SortedKeys.of(fields) {
            request.setValue(fields[name], forHTTPHeaderField: name)
        }
    }

    /// `base` + `api`: the api path is appended to the base path with exactly one slash
    /// between them; a query in `api` is kept, then `query` is added; a fragment of `base`
    /// is dropped. With no `api`, `base` is an absolute URL: `query` is added to its own,
    /// and its fragment is kept. One composition for both (an empty api path leaves the
    /// base path as it is).
    ///
    /// Built as text and parsed once with `URL(string:)`, which answers `nil` for a bad
    /// string: `URLComponents`' percent-encoded setters stop the process instead.
    static func url(base: URL, api: String?, query: [String: Any]?, memo: URLMemo? = nil) throws(NetworkError) -> URL {
        var encodedQuery = ""
        if let query {
            encodedQuery = try QueryStringEncoder.encode(query, url: base)
        }
        var key = ""
        if let api {
            // A NUL between them, which an encoded query never holds: no api and query pair
            // can spell another's key (the last NUL of a key ends its api).
            key = api
            key += "\u{0}"
            key += encodedQuery
            if let known = memo?.url(for: key) { return known }
        } else if query?.isEmpty ?? true {
            return base
        }
        let (whole, fragment) = split(base.absoluteString, at: UInt8(ascii: "#"), trim: 0)
        var (result, baseQuery) = split(whole, at: UInt8(ascii: "?"), trim: 0)
        let (path, apiQuery) = split(api ?? "", at: UInt8(ascii: "?"), trim: 0)
        if !path.isEmpty {
            // 0xFF never occurs in UTF-8: these only trim.
            result = split(result, at: 0xFF, trim: 1).0
            result += "/"
            result += PercentEncoding.encode(split(path, at: 0xFF, trim: 2).0, allowed: PercentEncoding.path, keepingEscapes: true)
        }
        var hasQuery = false
        appendQuery(baseQuery, to: &result, hasQuery: &hasQuery)
        appendQuery(apiQuery.map { PercentEncoding.encode($0, allowed: PercentEncoding.query, keepingEscapes: true) }, to: &result, hasQuery: &hasQuery)
        appendQuery(encodedQuery, to: &result, hasQuery: &hasQuery)
        if api == nil, let fragment {
            result += "#"
            result += fragment
        }
        guard let url = URL(string: result), url.scheme != nil else {
            throw invalidURL(base: base, api: api)
        }
        memo?.remember(url, for: key)
        return url
    }

    /// Appends `part`, when it is not empty, to the query of `url` (`?` before the first, `&` before the others).
    @inline(never)
    private static func appendQuery(_ part: String?, to url: inout String, hasQuery: inout Bool) {
        guard let part, !part.isEmpty else { return }
        url += hasQuery ? "&" : "?"
        url += part
        hasQuery = true
    }

    /// `text` before its first `byte`, and after it (`nil` when it holds none). The part
    /// before it loses the one `/` it ends with (`trim` 1) or every `/` it starts with (2).
    @inline(never)
    private static func split(_ text: String, at byte: UInt8, trim: Int) -> (String, String?) {
        // Over a copy of the bytes: one path for every string (only a URL the memo does not
        // know is split; the contiguous-storage path compiled a second copy, 336 bytes).
        Array(text.utf8).withUnsafeBufferPointer { bytes in
            let index = bytes.firstIndex(of: byte)
            var start = 0, end = index ?? bytes.count
            if trim == 2 {
                while start < end, bytes[start] == UInt8(ascii: "/") { start += 1 }
            } else if trim == 1, end > 0, bytes[end - 1] == UInt8(ascii: "/") {
                end -= 1
            }
            return (String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self),
                    index.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[($0 + 1)...]), as: UTF8.self) })
        }
    }

    /// The error of `base` and `api` when they make no URL (cold).
    @inline(__always)  // one caller
    private static func invalidURL(base: URL, api: String?) -> NetworkError {
        var message = "'"
        message += base.description
        message += "'"
        if let api {
            message += " with api '"
            message += api
            message += "'"
        }
        message += " does not make a valid URL"
        return invalidURL(message, url: base)
    }

    /// The error of a URL that does not parse (cold).
    @inline(__always)  // one call of the library's maker, not a function of its own
    private static func invalidURL(_ message: String, url: URL) -> NetworkError {
        NetworkError.library(.invalidRequest, message, url: url)
    }

    /// Why a multipart request whose form no writer made (no part added with
    /// `EasyNetworkUploads`) is refused before anything is sent.
    static var noUploads: String {
        "the request's multipartBody has no part added with EasyNetworkUploads: import EasyNetworkUploads (its MultipartFormData.append methods add the parts and send the body)."
    }

    /// The stage: calls `completion` once, on this thread, or for a multipart body on a
    /// utility queue once its form's writer (`EasyNetworkUploads`) wrote the file (with the
    /// `Content-Length` set). Retries start again from what it built. `exactTimeout`: the
    /// session may keep the idle timeout (see ``build(_:multipart:exactTimeout:)``); never
    /// for a body file, which always goes out delegate-driven.
    static func run(
        _ request: any BaseAPIRequest,
        builder: URLRequestBuilder,
        exactTimeout: Bool = false,
        completion: @escaping @Sendable (Result<URLRequest, NetworkError>, MultipartBodyFile?) -> Void
    ) {
        // Read once: a computed `multipartBody` makes a new boundary on every read, and
        // the Content-Type header and the body must name the same one.
        let form = multipartForm(of: request)
        let urlRequest: URLRequest
        do {
            urlRequest = try builder.build(request, multipart: form, exactTimeout: exactTimeout && form == nil)
        } catch {
            return completion(.failure(error), nil)
        }
        guard let form else { return completion(.success(urlRequest), nil) }
        guard let writer = form.writer else {
            return completion(.failure(NetworkError.library(.invalidRequest, noUploads, url: urlRequest.url)), nil)
        }
        writer.write(form, fields: request.params, into: urlRequest, completion: completion)
    }
}
