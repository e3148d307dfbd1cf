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
/// when the task has a completion handler, so libcurl's text is the only sign. Such a
/// -1, or a -1 after a response head with fewer bytes than it declared, becomes
/// `networkConnectionLost`, keeping the original error as the underlying one.
enum TruncatedBody {
    /// `error`, or `networkConnectionLost` when it is a -1 that cut a body short: after
    /// `response` with only `received` of its declared bytes, or libcurl said so.
    static func classify(_ error: any Error, response: HTTPURLResponse?, received: Int64) -> any Error {
        guard let urlError = error as? URLError, urlError.code == .unknown else { return error }
        if let response {
            let declared = response.expectedContentLength
            return declared < 0 || received < declared ? connectionLost(urlError) : error
        }
        return urlError.localizedDescription.hasPrefix("transfer closed with") ? connectionLost(urlError) : error
    }

    /// `networkConnectionLost`, with `error`'s description and `error` as the underlying one.
    static func connectionLost(_ error: URLError) -> URLError {
        URLError(.networkConnectionLost, userInfo: [
            NSLocalizedDescriptionKey: error.localizedDescription,
            NSUnderlyingErrorKey: error,
        ])
    }
}
