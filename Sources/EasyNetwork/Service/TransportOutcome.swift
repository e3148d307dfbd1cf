import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one data task produced: the response and body, or the error.
package struct TransportOutcome: Sendable {
    package let request: URLRequest
    package var response: HTTPURLResponse?
    package var data: Data
    package var error: (any Error)?
    /// When the response began to arrive, where the platform tells.
    package var firstByteAt: Date?

    package init(request: URLRequest, response: HTTPURLResponse? = nil, data: Data = Data(), error: (any Error)? = nil) {
        self.request = request
        self.response = response
        self.data = data
        self.error = error
    }
}
