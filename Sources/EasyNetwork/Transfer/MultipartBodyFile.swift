import Foundation

/// A request's multipart body written to a temporary file (by its form's
/// ``MultipartWriter``, in `EasyNetworkUploads`): the request's `params` as text fields,
/// then the parts of its ``MultipartFormData``, all between the one boundary its
/// `Content-Type` names.
///
/// The form is read from the request once (``URLRequestBuilder/multipartForm(of:)``) and
/// that one value gives both the header and this file. A protocol, not a class of the
/// core: the core only reads it, the product makes it.
@usableFromInline
package protocol MultipartBodyFile: AnyObject, Sendable {
    /// Where the body is.
    var url: URL { get }
    /// Its length in bytes.
    var length: Int64 { get }
    /// The writer that made it, which also hands it to `URLSession`.
    var writer: any MultipartWriter { get }
    /// Deletes the file.
    func remove()
}
