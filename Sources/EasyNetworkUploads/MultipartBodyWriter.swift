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
    func write(
        _ form: MultipartFormData,
        fields params: [String: Any]?,
        into request: URLRequest,
        completion: @escaping @Sendable (Result<URLRequest, NetworkError>, MultipartBodyFile?) -> Void
    ) {
        // The request's `params` go first, as text fields (`if let`, not `params ?? [:]`:
        // a literal compiles a dictionary builder); written as they are, no parts made.
        var fields: [(name: String, value: String)] = []
        if let params { fields = QueryStringEncoder.fields(params) }
        QueueHop.async(.global(qos: .utility)) { [fields] in
            // Written on this thread to a new temporary file.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(Self.namePrefix + UUID().uuidString)
            do {
                let body = TemporaryBodyFile(url: file, length: try form.write(to: file, fields: fields))
                var sized = request
                sized.setValue(String(body.length), forHTTPHeaderField: "Content-Length")
                completion(.success(sized), body)
            } catch {
                try? FileManager.default.removeItem(at: file)
                completion(.failure(NetworkError(kind: .encoding, message: "cannot write the multipart body: " + error.localizedDescription, url: request.url, underlyingError: error)), nil)
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

    /// How the names of this process's body files begin (the process number keeps apart
    /// the files of two processes sharing a temporary folder).
    /// (Made when asked, once per body: a stored `static let` compiles a one-time
    /// initializer, its token and an accessor.)
    static var namePrefix: String {
        "EasyNetwork-upload-" + String(Int(ProcessInfo.processInfo.processIdentifier)) + "-"
    }
}
