import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Recognises a body cut short, so that it counts as the transient error it is.
///
/// Apple's URLSession reports a connection closed before the declared `Content-Length`
/// as `networkConnectionLost` (-1005); swift-corelibs-foundation reports libcurl's
/// "transfer closed with 9000 bytes remaining to read" (or "... with outstanding read
/// data remaining" for a chunked body) as `unknown` (-1), with no response and no data
/// when the task has a completion handler, so libcurl's text is then the only sign.
/// Such a -1 becomes `networkConnectionLost`, keeping the original error as the
/// underlying one; any other error is left as it is.
package enum TruncatedBody {
    /// `error`, or `networkConnectionLost` when it is a -1 that cut a body short: fewer
    /// than the `declared` bytes were `received`, or libcurl said so.
    /// - Parameter declared: the length the response head declared (`nil` or negative
    ///   when there was no head or it declared none).
    @inline(never)  // one copy: the exchange and the downloads call it
    package static func classify(_ error: any Error, declared: Int64?, received: Int64) -> any Error {
        guard let urlError = error as? URLError, urlError.errorCode == NSURLErrorUnknown else { return error }
        // `received` is never negative: a missing or negative `declared` is never short of it.
        let words = urlError.localizedDescription
        guard received < declared ?? 0 || words.contains("transfer closed with") else { return error }
        // `networkConnectionLost`, with the error's description and the error as the underlying one.
        return URLError(.networkConnectionLost, userInfo: [NSLocalizedDescriptionKey: words, NSUnderlyingErrorKey: urlError])
    }
}
