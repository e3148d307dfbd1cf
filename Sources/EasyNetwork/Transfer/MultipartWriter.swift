import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One part of a ``MultipartFormData``, made by `EasyNetworkUploads`, whose `writer`
/// writes the body it is in.
@usableFromInline
package protocol MultipartPart: AnyObject, Sendable {
    var writer: any MultipartWriter { get }
}

/// Writes a request's multipart body to a temporary file: the engine of the
/// `EasyNetworkUploads` product, carried by every ``MultipartFormData`` whose parts it
/// added (``MultipartFormData/writer``). The core never names it.
@usableFromInline
package protocol MultipartWriter: Sendable {
    /// Writes `form` preceded by `fields` (the request's `params` as text fields) to a
    /// new temporary file, off the caller's thread, then calls `completion` once, on any
    /// thread, with `request` and its `Content-Length` set, and the file. A file that cannot
    /// be read or written is an `encoding` error naming the request's URL.
    func write(
        _ form: MultipartFormData,
        fields: [String: Any]?,
        into request: URLRequest,
        completion: @escaping @Sendable (Result<URLRequest, NetworkError>, MultipartBodyFile?) -> Void
    )

    /// A delegate-driven task of `session` sending `request` with the body in `file`, and
    /// `progress` with the expected total filled in where `URLSession` does not know it;
    /// `nil` when the file cannot be read.
    func uploadTask(
        from file: URL,
        request: URLRequest,
        in session: URLSession,
        progress: (@Sendable (Int64, Int64) -> Void)?
    ) -> (task: URLSessionTask, progress: (@Sendable (Int64, Int64) -> Void)?)?
}
