import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one data task produced: the response and body, or the error. A streamed
/// transfer (a download, written to disk as it arrives) keeps no body: it counts the
/// bytes it handed on in ``streamedBytes``.
///
/// A value with one reference inside (its ``Fields``, copied before a change while another
/// outcome shares them): it needs no value witnesses of its own (a single reference uses
/// the runtime's), and a copy is one retain.
@usableFromInline  // named by RequestPlugIn, which the features emitted into products name
package struct TransportOutcome: Sendable {
    /// The fields of an outcome.
    private final class Fields: @unchecked Sendable {
        // unchecked: changed only through an outcome that holds the only reference (copy
        // on write, `unique`); fields that two outcomes share are never changed.
        // Size: `Optional<T>` spelled out, set in `init`: `T?` has an implicit `= nil`.
        let request: URLRequest
        var response: Optional<HTTPURLResponse>
        var data: Data
        var error: Optional<any Error>
        var firstByteAt: Optional<Date>
        var streamedBytes: Optional<Int>
        #if canImport(FoundationNetworking)
        var redirect: Optional<URLRequest>
        #endif

        init(request: URLRequest, response: HTTPURLResponse?, data: Data, error: (any Error)?) {
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

        /// A copy to change.
        @inline(never)
        func copy() -> Fields {
            let copy = Fields(request: request, response: response, data: data, error: error)
            copy.firstByteAt = firstByteAt
            copy.streamedBytes = streamedBytes
            #if canImport(FoundationNetworking)
            copy.redirect = redirect
            #endif
            return copy
        }
    }

    private var fields: Fields

    /// The fields, to change: copied first when another outcome shares them.
    private var unique: Fields {
        mutating get {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            return fields
        }
    }

    // Size: what the products read is `package` and read-only (two getters: `request` and
    // `received`); a `package var` would compile a getter, a setter and a two-function
    // `modify`, and a package property with an internal setter a key path setter. The
    // core's own files read and set the fields below directly (inlined); a product changes
    // them through a method below.
    package var request: URLRequest { fields.request }
    /// The response and the error, for the products.
    package var received: (response: HTTPURLResponse?, error: (any Error)?) { (fields.response, fields.error) }
    var response: HTTPURLResponse? {
        get { fields.response }
        set { unique.response = newValue }
    }
    var data: Data {
        get { fields.data }
        set { unique.data = newValue }
    }
    var error: (any Error)? {
        get { fields.error }
        set { unique.error = newValue }
    }
    /// When the response began to arrive, where the platform tells.
    var firstByteAt: Date? {
        get { fields.firstByteAt }
        set { unique.firstByteAt = newValue }
    }
    /// The body bytes a streamed transfer handed on instead of keeping them in `data`,
    /// or `nil` for a buffered body. A streamed transfer judged the status itself, and
    /// its body is not the host's to decode (no envelope).
    var streamedBytes: Int? { fields.streamedBytes }
    #if canImport(FoundationNetworking)
    /// A redirect that keeps the method and the body, which the session did not follow
    /// because swift-corelibs-foundation would send it without the body: the exchange
    /// sends it, with the body (see ``SessionDelegate``). `response` is the 3xx.
    var redirect: URLRequest? {
        get { fields.redirect }
        set { unique.redirect = newValue }
    }
    #endif

    /// (Emitted into the products that make one: the core makes its outcomes with the
    /// initializer below.)
    @_alwaysEmitIntoClient
    package init(request: URLRequest, response: HTTPURLResponse? = nil, data: Data = Data(), error: (any Error)? = nil) {
        self.init(request: request, response: response, data: data, error: error, firstByteAt: nil, redirect: nil, streamedBytes: nil)
    }

    /// What a session task produced, with when its response began to arrive, (Linux) a
    /// redirect left to the exchange (``redirect``; elsewhere always `nil`) and, for a
    /// streamed transfer, ``streamedBytes``: every field set once, where a change afterwards
    /// would check for a shared copy first.
    @usableFromInline
    init(request: URLRequest, response: HTTPURLResponse?, data: Data, error: (any Error)?, firstByteAt: Date?, redirect: URLRequest?, streamedBytes: Int?) {
        fields = Fields(request: request, response: response, data: data, error: error)
        fields.firstByteAt = firstByteAt
        fields.streamedBytes = streamedBytes
        #if canImport(FoundationNetworking)
        fields.redirect = redirect
        #endif
    }

    /// The outcome of a streamed transfer (a download), which handed on `streamedBytes`
    /// body bytes instead of keeping them; `firstByteAt`: when its response began to arrive.
    /// (Emitted into the downloads product, which makes one.)
    @_alwaysEmitIntoClient
    package init(request: URLRequest, response: HTTPURLResponse?, error: (any Error)?, firstByteAt: Date?, streamedBytes: Int) {
        self.init(request: request, response: response, data: Data(), error: error, firstByteAt: firstByteAt, redirect: nil, streamedBytes: streamedBytes)
    }

    /// Puts `response` and its body `data` in place of what arrived (a cache's stored
    /// response for a `304 Not Modified`).
    package mutating func replace(response: HTTPURLResponse, data: Data) {
        let fields = unique
        fields.response = response
        fields.data = data
    }

    /// The outcome of a task that could not start, or of a seat that left a shared transfer
    /// (the coalescer): `URLError` `code`. (Cold, out of line,
    /// and here, where `URLError` is made already: a file that makes one carries its
    /// conformance lookups too.)
    @inline(never)
    package init(_ request: URLRequest, failed code: URLError.Code) {
        self.init(request: request, error: URLError(code, userInfo: [String: Any]()))  // not the default `[:]`: its literal compiles a dictionary initializer
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
