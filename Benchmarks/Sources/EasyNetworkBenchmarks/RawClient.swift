import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The baseline: a hand-written URLSession dataTask + JSONSerialization + main-queue callback.
final class RawClient: @unchecked Sendable { // unchecked: only immutable lets (URLSession is thread-safe)
    private let session: URLSession
    private let url: URL

    init(url: URL) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
        self.url = url
    }

    /// Sends the GET and calls `completion` on the main queue with whether it succeeded.
    func get(_ completion: @escaping @Sendable (Bool) -> Void) {
        send(finishing: nil, completion)
    }

    /// The same, finishing `operation` from the task's completion handler (on the session's
    /// delegate queue) before the hop to the main queue: the floor's path.
    func get(finishing operation: FloorOperation, _ completion: @escaping @Sendable (Bool) -> Void) {
        send(finishing: operation, completion)
    }

    /// The floor's path calling `completion` on the session's delegate queue (no main-queue
    /// hop): for a caller that resumes an awaiting task, which hops by itself.
    func getInPlace(finishing operation: FloorOperation, _ completion: @escaping @Sendable (Bool) -> Void) {
        send(finishing: operation, inPlace: true, completion)
    }

    private func send(finishing operation: FloorOperation?, inPlace: Bool = false, _ completion: @escaping @Sendable (Bool) -> Void) {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.cachePolicy = .reloadIgnoringLocalCacheData
        session.dataTask(with: request) { data, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            var ok = error == nil && (200..<300).contains(status)
            if ok, let data {
                ok = (try? JSONSerialization.jsonObject(with: data, options: [])) != nil
            }
            operation?.finish()
            if inPlace {
                completion(ok)
            } else {
                DispatchQueue.main.async { completion(ok) }
            }
        }.resume()
    }

    func invalidate() {
        session.finishTasksAndInvalidate()
    }
}
