import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request's multipart body written to a temporary file (by its form's
/// ``MultipartWriter``): the request's `params` as text fields, then the parts of its
/// ``MultipartFormData``, all between the one boundary its `Content-Type` names.
///
/// The form is read from the request once (``URLRequestBuilder/multipartForm(of:)``) and
/// that one value gives both the header and this file.
package struct MultipartBodyFile: Sendable {
    /// Where the body is.
    package let url: URL
    /// Its length in bytes.
    package let length: Int64
    /// The writer that made it, which also hands it to `URLSession`.
    package let writer: any MultipartWriter

    package init(url: URL, length: Int64, writer: any MultipartWriter) {
        self.url = url
        self.length = length
        self.writer = writer
    }

    /// Deletes the file.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// One part of a ``MultipartFormData``, made by `EasyNetworkUploads`, whose `writer`
/// writes the body it is in.
package protocol MultipartPart: AnyObject, Sendable {
    var writer: any MultipartWriter { get }
}

/// Writes a request's multipart body to a temporary file: the engine of the
/// `EasyNetworkUploads` product, carried by every ``MultipartFormData`` whose parts it
/// added (``MultipartFormData/writer``). The core never names it.
package protocol MultipartWriter: Sendable {
    /// Writes `form` preceded by `fields` (the request's `params` as text fields) to a
    /// new temporary file, off the caller's thread, then calls `completion` once, on any
    /// thread. A file that cannot be read or written is an `encoding` error naming `url`.
    func write(
        _ form: MultipartFormData,
        fields: [String: Any]?,
        for url: URL?,
        completion: @escaping @Sendable (Result<MultipartBodyFile, NetworkError>) -> Void
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
