import Foundation

/// A request's multipart body written to a temporary file: the request's `params` as
/// text fields, then the parts of its ``MultipartFormData``, all between the one
/// boundary its `Content-Type` names.
///
/// The form is read from the request once (``URLRequestBuilder/multipartForm(of:)``) and
/// that one value gives both the header and this file.
struct MultipartBodyFile: Sendable {
    /// Where the body is.
    let url: URL
    /// Its length in bytes.
    let length: Int64

    /// `form` preceded by `params` as text fields, keeping `form`'s boundary.
    @inline(__always)  // one caller
    static func body(_ form: MultipartFormData, fields params: [String: Any]?) -> MultipartFormData {
        var body = MultipartFormData(boundary: form.boundary)
        for (name, value) in QueryStringEncoder.fields(params ?? [:]) {
            body.append(value, name: name)
        }
        body.append(contentsOf: form)
        return body
    }

    /// Writes `body` to a new temporary file off the caller's thread (copying large files
    /// takes a while, and the caller may be the main thread), then calls `completion` on
    /// that utility queue. A file that cannot be read or written is an encoding error
    /// naming `requestURL`.
    static func write(
        _ body: MultipartFormData,
        for requestURL: URL?,
        completion: @escaping @Sendable (Result<MultipartBodyFile, NetworkError>) -> Void
    ) {
        QueueHop.async(.global(qos: .utility)) {
            completion(write(body, for: requestURL))
        }
    }

    /// How the names of this process's body files begin (the process number keeps apart
    /// the files of two processes sharing a temporary folder).
    static let namePrefix = "EasyNetwork-upload-" + String(Int(ProcessInfo.processInfo.processIdentifier)) + "-"

    /// Writes `body` to a new temporary file on the calling thread.
    static func write(_ body: MultipartFormData, for requestURL: URL?) -> Result<MultipartBodyFile, NetworkError> {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(namePrefix + UUID().uuidString)
        do {
            return .success(MultipartBodyFile(url: file, length: try body.write(to: file)))
        } catch {
            try? FileManager.default.removeItem(at: file)
            return .failure(NetworkError(kind: .encoding, message: "cannot write the multipart body: " + error.localizedDescription, url: requestURL, underlyingError: error))
        }
    }

    /// Deletes the file.
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
