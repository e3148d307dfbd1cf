import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cache's part in one request: the lookup before the first attempt is sent, the
/// stored body for a `304`, and storing a response once it has been validated and
/// mapped. Only a response that mapped is stored, so a business failure, a response
/// an interceptor rejected or one that did not decode is never served again.
final class CacheStage<Output>: Sendable {
    private let cache: ResponseCache
    private let policy: CachePolicy
    private let context: ResponseContext
    private let transform: @Sendable (NetworkResponse) throws -> Output
    private let cachedValue: (@Sendable (Output) -> Void)?
    private let callbackQueue: DispatchQueue
    /// Whether the lookup ran (nothing is stored otherwise, e.g. for a multipart
    /// upload), and the matching entry it found.
    private let lookup = Protected<(done: Bool, entry: CachedResponse?)>((false, nil))

    /// The stage of a request, or `nil` when it does not use a cache.
    init?(
        cache: ResponseCache?,
        policy: CachePolicy,
        context: ResponseContext,
        callbackQueue: DispatchQueue,
        transform: @escaping @Sendable (NetworkResponse) throws -> Output,
        cachedValue: (@Sendable (Output) -> Void)?
    ) {
        guard let cache, policy != .networkOnly else { return nil }
        self.cache = cache
        self.policy = policy
        self.context = context
        self.callbackQueue = callbackQueue
        self.transform = transform
        self.cachedValue = cachedValue
    }

    /// Before the first attempt, with the request as it will be sent (token and
    /// interceptors applied): the answer when the policy lets a stored copy answer
    /// and it still maps; otherwise `nil`, after handing a stored copy to
    /// `onCachedValue` (`.cacheThenNetwork`) or adding revalidation headers.
    func lookUp(_ request: inout URLRequest, token: String?) -> Output? {
        let key = CacheKey(request: request, token: token)
        let sent = request
        let entry = cache.response(for: key.value).flatMap { $0.matchesVary(of: sent) ? $0 : nil }
        lookup.write { $0 = (true, entry) }
        guard let entry else { return nil }
        switch policy {
        case .networkOnly:
            return nil
        case .cacheElseNetwork(let maxAge):
            guard Date().timeIntervalSince(entry.storedAt) < maxAge, let response = response(from: entry, request: request) else { return nil }
            // A stored copy that no longer maps (a stricter type) is not the answer: the network is.
            return try? transform(response)
        case .cacheThenNetwork:
            if let cachedValue, let response = response(from: entry, request: request), let value = try? transform(response) {
                let box = UncheckedSendable(value)
                callbackQueue.async { cachedValue(box.value) }
            }
            return nil
        case .revalidate:
            if let etag = entry.etag {
                request.setValue(etag, forHTTPHeaderField: "If-None-Match")
            }
            if let lastModified = entry.lastModified {
                request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
            }
            return nil
        }
    }

    /// A `304 Not Modified` to a revalidation becomes the stored response.
    func useStoredBody(for outcome: inout TransportOutcome) {
        guard outcome.error == nil, outcome.response?.statusCode == 304,
              let entry = lookup.read({ $0.entry }), let url = outcome.request.url,
              let stored = HTTPURLResponse(url: url, statusCode: entry.statusCode, httpVersion: "HTTP/1.1", headerFields: entry.headers)
        else { return }
        outcome.response = stored
        outcome.data = entry.body
    }

    /// After `response` (sent with `token`) passed validation and mapped: stores it
    /// when HTTP allows, and otherwise removes the copy an earlier response left.
    func storeIfAllowed(_ response: NetworkResponse, token: String?) {
        guard lookup.read({ $0.done }), (200..<300).contains(response.statusCode) else { return }
        let request = response.request
        let key = CacheKey(request: request, token: token)
        let http = response.httpResponse
        let directives = CacheDirectives(cacheControl: http.value(forHTTPHeaderField: "Cache-Control"))
        let asked = CacheDirectives(cacheControl: CacheKey.header("Cache-Control", of: request))
        guard let varyNames = CacheDirectives.varyNames(http.value(forHTTPHeaderField: "Vary")),
              !directives.noStore, !asked.noStore, !directives.isPrivate || key.hasCredential
        else {
            cache.remove(key: key.value)
            return
        }
        cache.store(CachedResponse(
            key: key.value,
            url: request.url?.absoluteString ?? "",
            statusCode: http.statusCode,
            headers: CachedResponse.storableHeaders(of: http),
            storedAt: Date(),
            vary: CacheKey.varyValues(varyNames, of: request),
            bodyLength: response.data.count,
            bodyChecksum: 0
        ), body: response.data)
    }

    /// A stored response as a ``NetworkResponse`` to `request`.
    private func response(from entry: CachedResponse, request: URLRequest) -> NetworkResponse? {
        guard let url = request.url,
              let http = HTTPURLResponse(url: url, statusCode: entry.statusCode, httpVersion: "HTTP/1.1", headerFields: entry.headers)
        else { return nil }
        return NetworkResponse(request: request, httpResponse: http, data: entry.body, envelope: context.envelope, jsonDecoder: context.jsonDecoder)
    }
}
