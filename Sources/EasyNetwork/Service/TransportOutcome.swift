import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one data task produced: the response and body, or the error. A streamed
/// transfer (a download, written to disk as it arrives) keeps no body: it counts the
/// bytes it handed on in ``streamedBytes``.
@usableFromInline  // named by RequestPlugIn, which the features emitted into products name
package struct TransportOutcome: Sendable {
    // Size: `Optional<T>` spelled out, set in `init`: `T?` has an implicit `= nil`, which
    // in a package type compiles a function with an unwind entry.
    package let request: URLRequest
    package var response: Optional<HTTPURLResponse>
    package var data: Data
    package var error: Optional<any Error>
    /// When the response began to arrive, where the platform tells.
    package var firstByteAt: Optional<Date>
    /// The body bytes a streamed transfer handed on instead of keeping them in `data`,
    /// or `nil` for a buffered body. A streamed transfer judged the status itself, and
    /// its body is not the host's to decode (no envelope).
    package var streamedBytes: Optional<Int>
    #if canImport(FoundationNetworking)
    /// A redirect that keeps the method and the body, which the session did not follow
    /// because swift-corelibs-foundation would send it without the body: the exchange
    /// sends it, with the body (see ``SessionDelegate``). `response` is the 3xx.
    package var redirect: Optional<URLRequest>
    #endif

    package init(request: URLRequest, response: HTTPURLResponse? = nil, data: Data = Data(), error: (any Error)? = nil) {
        self.request = request
        self.response = response
        self.data = data
        self.error = error
        firstByteAt = nil
        streamedBytes = nil
        #if canImport(FoundationNetworking)
        redirect = nil
        #endif
    }
}
