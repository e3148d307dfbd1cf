import Foundation

/// A `multipart/form-data` body: text fields and files, from memory or from disk.
///
/// The type is the core's (a request's ``BaseAPIRequest/multipartBody`` names it); its
/// parts are added with the methods of the `EasyNetworkUploads` product, which also
/// writes and sends the body:
///
/// ```swift
/// import EasyNetworkUploads
///
/// var form = MultipartFormData()
/// form.append("Holiday", name: "title")
/// form.append(fileAt: photoURL, name: "photo")              // filename and MIME type from the URL
/// form.append(jsonData, name: "meta", fileName: "meta.json", mimeType: "application/json")
/// ```
///
/// Give it to a request (``BaseAPIRequest/multipartBody``): EasyNetwork writes the body
/// to a temporary file, copying files in 64 KB pieces, and uploads from that file, so a
/// 200 MB photo is never held in memory; the file is removed when the request ends,
/// whatever the outcome. Names and file names are escaped as browsers do (`"` as `%22`,
/// CR and LF as `%0D` and `%0A`).
public struct MultipartFormData: Sendable {
    /// The boundary and the parts, in one object: a struct of one reference is copied,
    /// moved and freed by the runtime's shared value witnesses (a struct of a string and an
    /// array compiles nine of its own, about 480 bytes). Never changed once made
    /// (``addPart(_:)`` makes a new value).
    private let storage: Storage

    /// The boundary between parts.
    public var boundary: String {
        storage.boundary
    }

    /// The parts, in order.
    @usableFromInline package var parts: [any MultipartPart] {
        storage.parts
    }

    /// An empty body with a random boundary (or the one given).
    @_alwaysEmitIntoClient  // in the caller: the pipeline reads forms, never makes one
    public init(boundary: String? = nil) {
        self.init(boundary: boundary ?? "EasyNetwork-" + UUID().uuidString, parts: [])
    }

    @usableFromInline
    init(boundary: String, parts: [any MultipartPart]) {
        storage = Storage(boundary: boundary, parts: parts)
    }

    /// The `Content-Type` header value for this body.
    public var contentType: String {
        "multipart/form-data; boundary=" + boundary
    }

    /// The writer of the body (`EasyNetworkUploads`), which made every part; `nil` for a
    /// form without parts, which no request can send.
    package var writer: (any MultipartWriter)? {
        parts.first?.writer
    }

    /// Adds `part` (in `EasyNetworkUploads`, which makes every part).
    @_alwaysEmitIntoClient
    package mutating func addPart(_ part: any MultipartPart) {
        // An append, not `parts + [part]`: the literal and the `+` compiled about 560 bytes
        // into each module that adds parts.
        var parts = parts
        parts.append(part)
        self = MultipartFormData(boundary: boundary, parts: parts)
    }
}

/// What a ``MultipartFormData`` holds.
private final class Storage: Sendable {
    let boundary: String
    let parts: [any MultipartPart]

    init(boundary: String, parts: [any MultipartPart]) {
        self.boundary = boundary
        self.parts = parts
    }
}
