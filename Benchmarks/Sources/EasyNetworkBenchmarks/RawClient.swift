import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The baseline: a hand-written URLSession dataTask + JSONSerialization + main-queue callback.
final class RawClient: @unchecked Sendable {
    private let session: URLSession
    private let url: URL

    init(url: URL) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
        self.url = url
    }

    func get(_ completion: @escaping @Sendable (Bool) -> Void) {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.cachePolicy = .reloadIgnoringLocalCacheData
        session.dataTask(with: request) { data, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            var ok = error == nil && (200..<300).contains(status)
            if ok, let data {
                ok = (try? JSONSerialization.jsonObject(with: data, options: [])) != nil
            }
            DispatchQueue.main.async { completion(ok) }
        }.resume()
    }

    func invalidate() {
        session.finishTasksAndInvalidate()
    }
}
