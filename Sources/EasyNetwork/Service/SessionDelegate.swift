import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of a host's session: answers authentication challenges so that a 401
/// never hangs (the response such a challenge carried is reported instead), and hands
/// every event of a task to its ``TransferObserver``: ordinary requests collect their
/// body (``BufferingObserver``), downloads write it to disk. Tasks have no completion
/// handlers, because swift-corelibs-foundation tells a delegate about bytes received
/// and sent only for such tasks, and those moments reset the idle timeout
/// (``TransferActivity``). A task's end waits briefly for Apple's task metrics when
/// they come late (``MetricsRendezvous``). Upload progress goes to whoever asked for it.
///
/// It holds no reference to the host, so the session (which keeps its delegate alive
/// until invalidated) never keeps a host alive.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct TaskState {
        var challengeResponse: HTTPURLResponse?
        var uploadProgress: (@Sendable (_ sent: Int64, _ expected: Int64) -> Void)?
        var observer: any TransferObserver
        var activity: (any TransferActivity)?
        let metrics: MetricsRendezvous
    }

    private let tasks = Protected([ObjectIdentifier: TaskState]())
    private let redirect = Protected<(@Sendable (HTTPURLResponse, URLRequest) -> URLRequest?)?>(nil)
    private let expectsMetrics: Bool

    /// A delegate whose tasks' ends wait for task metrics when `expectsMetrics` (tests
    /// take Apple's side on Linux).
    init(expectsMetrics: Bool = MetricsRendezvous.platformReportsMetrics) {
        self.expectsMetrics = expectsMetrics
    }

    /// The host's redirect decision, if any.
    var redirectHandler: (@Sendable (HTTPURLResponse, URLRequest) -> URLRequest?)? {
        get { redirect.read { $0 } }
        set { redirect.write { $0 = newValue } }
    }

    /// Files a task's observer (and who is told when its bytes move) before the task resumes.
    func register(
        observer: any TransferObserver,
        for task: URLSessionTask,
        uploadProgress: (@Sendable (Int64, Int64) -> Void)?,
        activity: (any TransferActivity)? = nil
    ) {
        let metrics = MetricsRendezvous(expectsMetrics: expectsMetrics)
        tasks.write { $0[ObjectIdentifier(task)] = TaskState(uploadProgress: uploadProgress, observer: observer, activity: activity, metrics: metrics) }
    }

    /// How many tasks the delegate keeps state for (tests check that none lingers).
    var trackedTaskCount: Int {
        tasks.read { $0.count }
    }

    /// The task's observer; tells whoever waits on the task's activity that bytes moved.
    private func observer(for task: URLSessionTask) -> (any TransferObserver)? {
        guard let (observer, activity) = tasks.read({ $0[ObjectIdentifier(task)].map { ($0.observer, $0.activity) } }) else { return nil }
        activity?.transferMoved()
        return observer
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let observer = observer(for: dataTask), let http = response as? HTTPURLResponse else {
            completionHandler(.allow)
            return
        }
        completionHandler(observer.transferDidReceive(http) ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        observer(for: dataTask)?.transferDidReceive(data)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        guard let (progress, activity) = tasks.read({ $0[ObjectIdentifier(task)].map { ($0.uploadProgress, $0.activity) } }) else { return }
        activity?.transferMoved()
        progress?(totalBytesSent, totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let key = ObjectIdentifier(task)
        guard let state = tasks.read({ $0[key] }) else { return }
        let observer = state.observer
        let challenged = (error as? URLError)?.code == .cancelled ? state.challengeResponse : nil
        // The task stays referenced (its identity is the key) until its state is removed.
        let ended = UncheckedSendable((task: task, error: error))
        state.metrics.taskEnded(on: session.delegateQueue) { [tasks] firstByteAt in
            tasks.write { _ = $0.removeValue(forKey: ObjectIdentifier(ended.value.task)) }
            if let firstByteAt { observer.transferDidCollectMetrics(firstByteAt: firstByteAt) }
            if let challenged {
                _ = observer.transferDidReceive(challenged)
                observer.transferDidComplete(nil)
            } else {
                observer.transferDidComplete(ended.value.error)
            }
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        // swift-corelibs-foundation hangs on `.performDefaultHandling` for a 401 with
        // `WWW-Authenticate`; cancelling ends the task at once, and the challenge
        // still carries the 401 response, which the caller gets instead.
        let key = ObjectIdentifier(task)
        let response = challenge.failureResponse as? HTTPURLResponse
        tasks.write { tasks in
            if tasks[key] != nil { tasks[key]?.challengeResponse = response }
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        completionHandler(.performDefaultHandling, nil)
        #endif
    }

    /// The task's metrics arrived, at times after it completed: hands the moment its last
    /// response began to the task's ending, which may be waiting for it.
    func taskDidCollectMetrics(_ task: URLSessionTask, firstByteAt: Date?) {
        tasks.read { $0[ObjectIdentifier(task)]?.metrics }?.metricsArrived(firstByteAt: firstByteAt)
    }

    #if !canImport(FoundationNetworking)
    /// Apple platforms report task metrics (Linux never does).
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        taskDidCollectMetrics(task, firstByteAt: metrics.transactionMetrics.last?.responseStartDate)
    }
    #endif

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard var next = redirectHandler.map({ $0(response, request) }) ?? request else {
            completionHandler(nil)
            return
        }
        let origin = task.originalRequest?.url ?? response.url
        if !Self.sameOrigin(origin, next.url) {
            next.setValue(nil, forHTTPHeaderField: "Authorization")
            next.setValue(nil, forHTTPHeaderField: "Cookie")
        }
        completionHandler(next)
    }

    /// Whether two URLs share scheme, host and port.
    static func sameOrigin(_ lhs: URL?, _ rhs: URL?) -> Bool {
        guard let lhs, let rhs else { return false }
        return lhs.scheme?.lowercased() == rhs.scheme?.lowercased()
            && lhs.host?.lowercased() == rhs.host?.lowercased()
            && (lhs.port ?? defaultPort(lhs.scheme)) == (rhs.port ?? defaultPort(rhs.scheme))
    }

    private static func defaultPort(_ scheme: String?) -> Int? {
        switch scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }
}
