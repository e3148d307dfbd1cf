import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate-driven twin of ``RawClient``: the same GET, but on a task with no completion
/// handler, whose response, body and end reach a session delegate (as URLSession reports
/// every byte only to such tasks). Each task's body is kept in a dictionary under a lock
/// until the task completes; then the same JSON parse, the floor operation's finish and the
/// hop to the main queue as ``RawClient``. No EasyNetwork code runs on this path.
final class DelegateClient: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // unchecked: `bodies` and `callbacks` are only touched under `lock`; the rest is immutable.
    private let lock = NSLock()
    private var bodies: [Int: Data] = [:]
    private var callbacks: [Int: (operation: FloorOperation?, completion: @Sendable (Bool) -> Void)] = [:]
    private let url: URL
    private var session: URLSession!

    init(url: URL) {
        self.url = url
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    /// Sends the GET, finishing `operation` on the session's delegate queue when the task
    /// completes, then calls `completion` on the main queue with whether it succeeded.
    func get(finishing operation: FloorOperation?, _ completion: @escaping @Sendable (Bool) -> Void) {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.cachePolicy = .reloadIgnoringLocalCacheData
        let task = session.dataTask(with: request)
        lock.lock()
        callbacks[task.taskIdentifier] = (operation, completion)
        lock.unlock()
        task.resume()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        bodies[dataTask.taskIdentifier, default: Data()].append(data)
        lock.unlock()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        let body = bodies.removeValue(forKey: task.taskIdentifier)
        let callback = callbacks.removeValue(forKey: task.taskIdentifier)
        lock.unlock()
        let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
        var ok = error == nil && (200..<300).contains(status)
        if ok, let body {
            ok = (try? JSONSerialization.jsonObject(with: body, options: [])) != nil
        }
        guard let callback else { return }
        callback.operation?.finish()
        DispatchQueue.main.async { callback.completion(ok) }
    }
}
