import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The first stage: the request's `URLRequest` (URL, headers, parameters or encoded
/// body, by ``URLRequestBuilder``) and, for a multipart request, its body written to a
/// temporary file by its form's writer (`EasyNetworkUploads`). Retries start again from
/// what it built.
enum BuildStage {
    /// Why a multipart request whose form no writer made (no part added with
    /// `EasyNetworkUploads`) is refused before anything is sent.
    static let noUploads = "the request's multipartBody has no part added with EasyNetworkUploads: import EasyNetworkUploads (its MultipartFormData.append methods add the parts and send the body)."

    /// Calls `completion` once: on this thread, or for a multipart body on a utility
    /// queue once the file is written (with the `Content-Length` set). `exactTimeout`:
    /// the session may keep the idle timeout (see ``URLRequestBuilder/build(_:multipart:exactTimeout:)``);
    /// never for a body file, which always goes out delegate-driven.
    static func run(
        _ request: any BaseAPIRequest,
        builder: URLRequestBuilder,
        exactTimeout: Bool = false,
        completion: @escaping @Sendable (Result<URLRequest, NetworkError>, MultipartBodyFile?) -> Void
    ) {
        // Read once: a computed `multipartBody` makes a new boundary on every read, and
        // the Content-Type header and the body must name the same one.
        let form = URLRequestBuilder.multipartForm(of: request)
        let built = builder.build(request, multipart: form, exactTimeout: exactTimeout && form == nil)
        guard let form, case .success(let urlRequest) = built else {
            completion(built, nil)
            return
        }
        guard let writer = form.writer else {
            completion(.failure(NetworkError(kind: .invalidRequest, message: Self.noUploads, url: urlRequest.url)), nil)
            return
        }
        writer.write(form, fields: request.params, for: urlRequest.url) { written in
            switch written {
            case .success(let file):
                var sized = urlRequest
                sized.setValue(String(file.length), forHTTPHeaderField: "Content-Length")
                completion(.success(sized), file)
            case .failure(let error):
                completion(.failure(error), nil)
            }
        }
    }
}
