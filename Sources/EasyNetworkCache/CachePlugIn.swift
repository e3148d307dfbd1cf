#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cache's part in one request, a ``RequestPlugIn``: the lookup before the first attempt is sent, the
/// stored body for a `304`, and storing a response once it has been validated and
/// mapped. Only a response that mapped is stored, so a business failure, a response
/// an interceptor rejected or one that did not decode is never served again.
final class CachePlugIn: RequestPlugIn, @unchecked Sendable {
    // unchecked: `looked` and `entry` are read and written only under `lock`.
    private let cache: ResponseCache
    private let policy: CachePolicy
    private let settings: HostSettings
    private let lock = Lock()
    /// Whether the lookup ran (nothing is stored otherwise, e.g. for a multipart
    /// upload), and the matching entry it found.
    private var looked = false
    private var entry: CachedResponse?

    /// The cache's part in a request whose policy uses it (not `.networkOnly`).
    init(cache: ResponseCache, policy: CachePolicy, settings: HostSettings) {
        self.cache = cache
        self.policy = policy
        self.settings = settings
    }

    /// Before the first attempt, with the request as it will be sent (token and
    /// interceptors applied): whether a stored response answers it (mapped into `sink`
    /// by its mapping, and not stored again: ``CachePolicy/cacheElseNetwork(maxAge:)``);
    /// else a value for `onCachedValue` goes to `queue` first
    /// (``CachePolicy/cacheThenNetwork``), or revalidation headers are added
    /// (``CachePolicy/revalidate``).
    func answers(_ request: inout URLRequest, credential: String?, sink: any ExchangeSink, lock: Lock, queue: DispatchQueue) -> Bool {
        let key = CacheKey(request: request, token: credential)
        var found = cache.response(for: key.value)
        if let stored = found, !stored.matchesVary(of: request) { found = nil }
        self.lock.lock()
        looked = true
        entry = found
        self.lock.unlock()
        guard let found else { return false }
        // Whether the stored response is the answer (else a value for `onCachedValue`).
        let final: Bool
        switch policy {
        case .networkOnly:
            return false
        case .cacheElseNetwork(let maxAge):
            guard Date().timeIntervalSinceReferenceDate - found.storedAt < maxAge else { return false }
            final = true
        case .cacheThenNetwork:
            final = false
        case .revalidate:
            // The stored headers, read as a response reads them (case-insensitively).
            guard let url = request.url, let stored = found.httpResponse(url: url) else { return false }
            if let etag = stored.value(forHTTPHeaderField: "ETag") {
                request.setValue(etag, forHTTPHeaderField: "If-None-Match")
            }
            if let lastModified = stored.value(forHTTPHeaderField: "Last-Modified") {
                request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
            }
            return false
        }
        guard let response = response(from: found, request: request) else { return false }
        guard final else {
            sink.deliverProvisional(response, on: queue, lock: lock)
            return false
        }
        // A stored copy that no longer maps (a stricter type) is not the answer: the network is.
        return sink.map(response, lock: lock) == nil
    }

    /// A `304 Not Modified` to a revalidation becomes the stored response.
    func received(_ outcome: inout TransportOutcome) {
        let (response, error) = outcome.received
        guard error == nil, response?.statusCode == 304, let url = outcome.request.url else { return }
        lock.lock()
        let entry = self.entry
        lock.unlock()
        guard let entry, let stored = entry.httpResponse(url: url) else { return }
        outcome.replace(response: stored, data: entry.body)
    }

    /// After `response` (sent with `token`) passed validation and mapped: stores it
    /// when HTTP allows, and otherwise removes the copy an earlier response left.
    func didMap(_ response: NetworkResponse, credential token: String?) {
        lock.lock()
        let looked = self.looked
        lock.unlock()
        guard looked, (200..<300).contains(response.statusCode) else { return }
        let request = response.request
        let key = CacheKey(request: request, token: token)
        let http = response.httpResponse
        let stated = http.value(forHTTPHeaderField: "Cache-Control")
        let vary = http.value(forHTTPHeaderField: "Vary")
        // Nothing for `no-store` (response or request) or `Vary: *`; `private` only under a credential.
        guard !CacheKey.lists("*", in: vary), !CacheKey.lists("no-store", in: stated),
              !CacheKey.lists("no-store", in: request.value(forHTTPHeaderField: "Cache-Control")),
              !CacheKey.lists("private", in: stated) || key.hasCredential
        else {
            cache.remove(key: key.value)
            return
        }
        let entry = CachedResponse(
            key: key.value, statusCode: http.statusCode, headers: CachedResponse.storableHeaders(of: http),
            storedAt: Date().timeIntervalSinceReferenceDate, vary: CacheKey.varyValues(CacheKey.items(vary), of: request), body: response.data
        )
        cache.store(entry, url: request.url?.absoluteString ?? "")
    }

    /// A stored response as a ``NetworkResponse`` to `request`.
    @inline(__always)  // one caller
    private func response(from entry: CachedResponse, request: URLRequest) -> NetworkResponse? {
        guard let url = request.url, let http = entry.httpResponse(url: url) else { return nil }
        return NetworkResponse(request: request, httpResponse: http, data: entry.body, payloadReader: settings.tunables.payloadReader, jsonDecoder: settings.tunables.jsonDecoder)
    }
}
