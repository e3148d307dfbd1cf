import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one data task produced: the response and body, or the error.
struct TransportOutcome: Sendable {
    let request: URLRequest
    var response: HTTPURLResponse?
    var data: Data
    var error: (any Error)?
    /// When the response began to arrive, where the platform tells.
    var firstByteAt: Date?

    init(request: URLRequest, response: HTTPURLResponse? = nil, data: Data = Data(), error: (any Error)? = nil) {
        self.request = request
        self.response = response
        self.data = data
        self.error = error
    }
}
