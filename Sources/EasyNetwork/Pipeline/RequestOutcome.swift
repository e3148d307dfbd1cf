import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a request ended, as interceptors see it in `didFinish`.
public struct RequestOutcome: Sendable {
    /// The last request sent (after adaptation), or `nil` if none was sent.
    public let urlRequest: URLRequest?
    /// The last HTTP response, if one arrived.
    public let response: HTTPURLResponse?
    /// The last response body.
    public let data: Data?
    /// The error, or `nil` on success.
    public let error: NetworkError?
    /// The request's measurements.
    public let metrics: RequestMetrics
}
