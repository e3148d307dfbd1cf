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
    // Size: only what the products read is `package`, read-only (a getter each); a `package
    // var` would compile a getter, a setter and a two-function `modify`. The core's own
    // files set every field directly; a product changes one through a method below.
    package let request: URLRequest
    package internal(set) var response: Optional<HTTPURLResponse>
    var data: Data
    package internal(set) var error: Optional<any Error>
    /// When the response began to arrive, where the platform tells.
    var firstByteAt: Optional<Date>
    /// The body bytes a streamed transfer handed on instead of keeping them in `data`,
    /// or `nil` for a buffered body. A streamed transfer judged the status itself, and
    /// its body is not the host's to decode (no envelope).
    var streamedBytes: Optional<Int>
    #if canImport(FoundationNetworking)
    /// A redirect that keeps the method and the body, which the session did not follow
    /// because swift-corelibs-foundation would send it without the body: the exchange
    /// sends it, with the body (see ``SessionDelegate``). `response` is the 3xx.
    var redirect: Optional<URLRequest>
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

    /// The outcome of a streamed transfer (a download), which handed on `streamedBytes`
    /// body bytes instead of keeping them; `firstByteAt`: when its response began to arrive.
    package init(request: URLRequest, response: HTTPURLResponse?, error: (any Error)?, firstByteAt: Date?, streamedBytes: Int) {
        self.init(request: request, response: response, error: error)
        self.firstByteAt = firstByteAt
        self.streamedBytes = streamedBytes
    }

    /// Puts `response` and its body `data` in place of what arrived (a cache's stored
    /// response for a `304 Not Modified`).
    package mutating func replace(response: HTTPURLResponse, data: Data) {
        self.response = response
        self.data = data
    }

    /// The outcome of a task that could not start: `URLError` `code`. (Cold, out of line,
    /// and here, where `URLError` is made already: a file that makes one carries its
    /// conformance lookups too.)
    @inline(never)
    init(_ request: URLRequest, failed code: URLError.Code) {
        self.init(request: request, error: URLError(code))
    }

    /// `error`, or `networkConnectionLost` when it is a -1 that cut a body short: fewer
    /// than the `declared` bytes were `received`, or libcurl said so; so a body cut short
    /// counts as the transient error it is.
    ///
    /// Apple's URLSession reports a connection closed before the declared `Content-Length`
    /// as `networkConnectionLost` (-1005); swift-corelibs-foundation reports libcurl's
    /// "transfer closed with 9000 bytes remaining to read" (or "... with outstanding read
    /// data remaining" for a chunked body) as `unknown` (-1), with no response and no data
    /// when the task has a completion handler, so libcurl's text is then the only sign.
    /// Such a -1 becomes `networkConnectionLost`, keeping the original error as the
    /// underlying one; any other error is left as it is.
    /// - Parameter declared: the length the response head declared (`nil` or negative
    ///   when there was no head or it declared none).
    @inline(never)  // one copy: the exchange and the downloads call it
    package static func truncatedBody(_ error: any Error, declared: Int64?, received: Int64) -> any Error {
        guard let urlError = error as? URLError, urlError.errorCode == NSURLErrorUnknown else { return error }
        // `received` is never negative: a missing or negative `declared` is never short of it.
        let words = urlError.localizedDescription
        // (`strstr`: `contains` compiles a generic `range(of:)` call and its conformance lookups.)
        guard received < declared ?? 0 || strstr(words, "transfer closed with") != nil else { return error }
        // `networkConnectionLost`, with the error's description and the error as the underlying one.
        return URLError(.networkConnectionLost, userInfo: [NSLocalizedDescriptionKey: words, NSUnderlyingErrorKey: urlError])
    }
}
