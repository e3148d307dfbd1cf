#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one ``MultipartWriter``: writes a request's `MultipartFormData`
/// (after its `params` as text fields) to a temporary file, copying files in 64 KB
/// pieces, off the caller's thread.
struct MultipartBodyWriter: MultipartWriter {
    static let shared = MultipartBodyWriter()

    func write(
        _ form: MultipartFormData,
        fields: [String: Any]?,
        into request: URLRequest,
        completion: @escaping @Sendable (Result<URLRequest, NetworkError>, MultipartBodyFile?) -> Void
    ) {
        let body = Self.body(form, fields: fields)
        QueueHop.async(.global(qos: .utility)) {
            switch Self.write(body, for: request.url) {
            case .success(let file):
                var sized = request
                sized.setValue(String(file.length), forHTTPHeaderField: "Content-Length")
                completion(.success(sized), file)
            case .failure(let error):
                completion(.failure(error), nil)
            }
        }
    }

    func uploadTask(
        from file: URL,
        request: URLRequest,
        in session: URLSession,
        progress: (@Sendable (Int64, Int64) -> Void)?
    ) -> (task: URLSessionTask, progress: (@Sendable (Int64, Int64) -> Void)?)? {
        guard let upload = UploadBody.prepare(file, for: request) else { return nil }
        return (upload.body.task(in: session, with: upload.request), upload.body.reporting(progress))
    }

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

    /// How the names of this process's body files begin (the process number keeps apart
    /// the files of two processes sharing a temporary folder).
    static let namePrefix = "EasyNetwork-upload-" + String(Int(ProcessInfo.processInfo.processIdentifier)) + "-"

    /// Writes `body` to a new temporary file on the calling thread.
    static func write(_ body: MultipartFormData, for requestURL: URL?) -> Result<MultipartBodyFile, NetworkError> {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(namePrefix + UUID().uuidString)
        do {
            return .success(TemporaryBodyFile(url: file, length: try body.write(to: file), writer: shared))
        } catch {
            try? FileManager.default.removeItem(at: file)
            return .failure(NetworkError(kind: .encoding, message: "cannot write the multipart body: " + error.localizedDescription, url: requestURL, underlyingError: error))
        }
    }
}
