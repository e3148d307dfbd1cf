import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a request ended, as interceptors see it in `didFinish`.
public struct RequestOutcome: Sendable {
    // One reference, not five fields: no value witnesses to copy them (made once per request).
    private let box: Box

    /// The last request sent (after adaptation), or `nil` if none was sent.
    public var urlRequest: URLRequest? { box.urlRequest }
    /// The last HTTP response, if one arrived.
    public var response: HTTPURLResponse? { box.response }
    /// The last response body.
    public var data: Data? { box.data }
    /// The error, or `nil` on success.
    public var error: NetworkError? { box.error }
    /// The request's measurements.
    public var metrics: RequestMetrics { box.metrics }

    init(urlRequest: URLRequest?, response: HTTPURLResponse?, data: Data?, error: NetworkError?, metrics: RequestMetrics) {
        box = Box(urlRequest: urlRequest, response: response, data: data, error: error, metrics: metrics)
    }

    private final class Box: Sendable {
        let urlRequest: URLRequest?, response: HTTPURLResponse?, data: Data?, error: NetworkError?, metrics: RequestMetrics

        init(urlRequest: URLRequest?, response: HTTPURLResponse?, data: Data?, error: NetworkError?, metrics: RequestMetrics) {
            self.urlRequest = urlRequest
            self.response = response
            self.data = data
            self.error = error
            self.metrics = metrics
        }
    }
}
