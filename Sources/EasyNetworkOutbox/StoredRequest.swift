#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the pipeline sees of an entry being delivered: the stored URL and method, the
/// request's wish for the host's token, and the outbox's rules. The stored `URLRequest`
/// itself goes in as built (see ``DeliveryOperation``), so nothing here is built again.
struct StoredRequest: BaseAPIRequest {
    let url: URL
    let httpMethod: NetworkService.Method
    let requiresAuthentication: Bool

    var api: String { url.path }
    var method: NetworkService.Method { httpMethod }
    var query: NetworkService.QueryType { .path }
    var params: [String: Any]? { nil }
    var headers: [String: String]? { nil }
    var absoluteURL: URL? { url }
    /// The outbox decides retries itself (and keeps them across launches); interceptors,
    /// the token's refresh and replay among them, still retry within an attempt.
    var retryPolicy: RetryPolicy? { RetryPolicy.none }
    /// Failures reach the outbox's dead letters, not the host's error handler.
    var suppressesErrorHandler: Bool { true }
    var coalescesIdenticalRequests: Bool? { false }
    var cachePolicy: CachePolicy? { .networkOnly }

    /// The request of `record` on `host`, or `nil` for a method the library does not send.
    init?(_ record: EntryRecord) {
        guard let method = NetworkService.Method(rawValue: record.method) else { return nil }
        url = record.url
        httpMethod = method
        requiresAuthentication = record.requiresAuthentication
    }

    /// The `URLRequest` to adapt and send: stored method, URL, headers and body, with the
    /// host's timeout as URLSession's backstop (the exchange keeps the exact deadline).
    static func urlRequest(_ record: EntryRecord, timeout: TimeInterval) -> URLRequest {
        var urlRequest = URLRequest(url: record.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: (timeout + 1).rounded(.up))
        urlRequest.httpMethod = record.method
        for (name, value) in record.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        if !record.body.isEmpty {
            urlRequest.httpBody = record.body
        }
        return urlRequest
    }
}
