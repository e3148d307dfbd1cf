import Foundation

/// A request's multipart body written to a temporary file (by its form's
/// ``MultipartWriter``): the request's `params` as text fields, then the parts of its
/// ``MultipartFormData``, all between the one boundary its `Content-Type` names.
///
/// The form is read from the request once (``URLRequestBuilder/multipartForm(of:)``) and
/// that one value gives both the header and this file.
package final class MultipartBodyFile: Sendable {
    // A class, not a struct: one reference to copy, no value witnesses for its existential.
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
