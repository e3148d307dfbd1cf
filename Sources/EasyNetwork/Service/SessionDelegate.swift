import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of a host's session: answers authentication challenges so that a 401
/// never hangs (the response such a challenge carried is reported instead), and hands
/// every event of a delegate-driven task to its ``TransferObserver``: requests that need
/// byte events collect their body (``BufferingObserver``), downloads write it to disk.
/// Those tasks have no completion handlers, because swift-corelibs-foundation tells a
/// delegate about bytes received and sent only for such tasks, and those moments reset
/// the idle timeout (``TransferActivity``). A task with a completion handler
/// (``PlainTransfer``) is never filed here: only its challenge's 401 is kept until its
/// completion takes it. On Apple platforms a task's end waits briefly for its task
/// metrics when they come late (``MetricsRendezvous``). Upload progress goes to whoever
/// asked for it.
///
/// It holds no reference to the host, so the session (which keeps its delegate alive
/// until invalidated) never keeps a host alive.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // unchecked: `entries` and `redirect` are only touched under `lock`.

    /// What the delegate keeps for one running task: its one allocation. Its vars are
    /// touched under the delegate's lock while it is filed, by one thread once taken out.
    private final class Entry {
        /// Kept so that its identity stays unique while the entry is filed.
        let task: URLSessionTask
        /// `nil` for a note on a task with a completion handler (see ``plainNotes``).
        let observer: (any TransferObserver)?
        let activity: (any TransferActivity)?
        let uploadProgress: (@Sendable (_ sent: Int64, _ expected: Int64) -> Void)?
        /// The 401 a cancelled authentication challenge carried (Linux).
        var challengeResponse: HTTPURLResponse?
        /// Why the ``ServerTrustEvaluator`` refused the task's server: its error, in place
        /// of the cancellation the refusal causes.
        var refusal: NetworkError?
        #if canImport(FoundationNetworking)
        /// A redirect that keeps the method and the body, not followed by the session (it
        /// would send it without the body): the request's exchange sends it (Linux).
        var followUp: URLRequest?
        #endif
        #if !canImport(FoundationNetworking) || DEBUG
        /// Present where the task's end waits for its metrics.
        var metrics: MetricsRendezvous?
        /// The task's error, kept while its end waits for the metrics.
        var error: (any Error)?
        #endif

        init(task: URLSessionTask, observer: (any TransferObserver)?, activity: (any TransferActivity)?,
             uploadProgress: (@Sendable (Int64, Int64) -> Void)?) {
            self.task = task
            self.observer = observer
            self.activity = activity
            self.uploadProgress = uploadProgress
        }
    }

    private let lock = Lock()
    /// Running tasks, in no order, scanned from the newest: a host usually has a handful in flight
    /// (a NetworkQueue bounds its own), and an array of class references brings no dictionary code.
    private var entries: [Entry] = []
    /// What the delegate heard of tasks with a completion handler (no entry), until their
    /// completions take it: the 401 a cancelled challenge carried (the task ends cancelled
    /// right after), or why the ``ServerTrustEvaluator`` refused a redirect (the task ends
    /// with the 3xx).
    /// Entries without an observer, searched as ``entries`` are.
    private var plainNotes: [Entry] = []
    private var redirect: (@Sendable (HTTPURLResponse, URLRequest) -> URLRequest?)?
    private var trust: (any ServerTrustEvaluator)?

    #if !canImport(FoundationNetworking) || DEBUG
    private let expectsMetrics: Bool

    /// A delegate whose tasks' ends wait for task metrics when `expectsMetrics` (tests
    /// take Apple's side on Linux).
    init(expectsMetrics: Bool = MetricsRendezvous.platformReportsMetrics) {
        self.expectsMetrics = expectsMetrics
    }
    #endif

    /// The host's redirect decision, if any.
    var redirectHandler: (@Sendable (HTTPURLResponse, URLRequest) -> URLRequest?)? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return redirect
        }
        set {
            lock.lock()
            redirect = newValue
            lock.unlock()
        }
    }

    /// Who judges the host's servers beyond the system's trust (pinning), if anyone.
    var trustEvaluator: (any ServerTrustEvaluator)? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return trust
        }
        set {
            lock.lock()
            trust = newValue
            lock.unlock()
        }
    }

    /// Files a task's observer (and who is told when its bytes move) before the task resumes.
    func register(
        observer: any TransferObserver,
        for task: URLSessionTask,
        uploadProgress: (@Sendable (Int64, Int64) -> Void)?,
        activity: (any TransferActivity)? = nil
    ) {
        let entry = Entry(task: task, observer: observer, activity: activity, uploadProgress: uploadProgress)
        #if !canImport(FoundationNetworking) || DEBUG
        if expectsMetrics { entry.metrics = MetricsRendezvous(expectsMetrics: true) }
        #endif
        lock.lock()
        entries.append(entry)
        lock.unlock()
    }

    /// How many tasks the delegate keeps state for (tests check that none lingers).
    var trackedTaskCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count + plainNotes.count
    }

    /// `task`'s entry, taken out of the registry when `remove`; call under `lock`.
    private func filed(_ task: ObjectIdentifier, remove: Bool = false) -> Entry? {
        Self.find(task, in: &entries, remove: remove)
    }

    /// `task`'s entry in `list` (``entries`` or ``plainNotes``), taken out when `remove`.
    private static func find(_ task: ObjectIdentifier, in list: inout [Entry], remove: Bool) -> Entry? {
        var index = list.count
        while index > 0 {
            index -= 1
            let entry = list[index]
            guard ObjectIdentifier(entry.task) == task else { continue }
            if remove {
                list.swapAt(index, list.count - 1)
                list.removeLast()
            }
            return entry
        }
        return nil
    }

    /// A new note on `task`, a task with a completion handler (no entry); call under `lock`.
    private func note(on task: URLSessionTask) -> Entry {
        let note = Entry(task: task, observer: nil, activity: nil, uploadProgress: nil)
        plainNotes.append(note)
        return note
    }

    /// The task's observer; tells whoever waits on the task's activity that bytes moved.
    private func observer(for task: URLSessionTask) -> (any TransferObserver)? {
        lock.lock()
        let entry = filed(ObjectIdentifier(task))
        lock.unlock()
        entry?.activity?.transferMoved()
        return entry?.observer ?? nil
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
        lock.lock()
        let entry = filed(ObjectIdentifier(task))
        lock.unlock()
        entry?.activity?.transferMoved()
        entry?.uploadProgress?(totalBytesSent, totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let key = ObjectIdentifier(task)
        lock.lock()
        #if !canImport(FoundationNetworking) || DEBUG
        if let entry = filed(key), let metrics = entry.metrics {
            entry.error = error
            lock.unlock()
            metrics.taskEnded(on: session.delegateQueue) { [self] firstByteAt in
                lock.lock()
                let entry = filed(key, remove: true)
                lock.unlock()
                if let entry { end(entry, error: entry.error, firstByteAt: firstByteAt) }
            }
            return
        }
        #endif
        let entry = filed(key, remove: true)
        lock.unlock()
        if let entry { end(entry, error: error, firstByteAt: nil) }
    }

    /// Tells a task's observer how it ended; its entry is gone already.
    private func end(_ entry: Entry, error: (any Error)?, firstByteAt: Date?) {
        guard let observer = entry.observer else { return }  // never filed so
        if let firstByteAt { observer.transferDidCollectMetrics(firstByteAt: firstByteAt) }
        #if canImport(FoundationNetworking)
        if error == nil, let next = entry.followUp {
            (observer as? BufferingObserver)?.followUp = next
        }
        #endif
        if let refusal = entry.refusal {
            observer.transferDidComplete(refusal)
        } else if let challenged = entry.challengeResponse, (error as? URLError)?.errorCode == NSURLErrorCancelled {
            _ = observer.transferDidReceive(challenged)
            observer.transferDidComplete(nil)
        } else {
            observer.transferDidComplete(error)
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
        let response = challenge.failureResponse as? HTTPURLResponse
        lock.lock()
        if let entry = filed(ObjectIdentifier(task)) {
            entry.challengeResponse = response
        } else if let response {
            note(on: task).challengeResponse = response  // a task with a completion handler
        }
        lock.unlock()
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        // The system's trust first, then the host's pins (swift-corelibs-foundation sends no
        // server-trust challenge: pinned hosts are refused there before any request is sent).
        if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust, let evaluator = trustEvaluator {
            let answer = evaluator.evaluate(challenge)
            if let refused = answer.refused { record(refused, for: task) }
            completionHandler(answer.disposition, answer.credential)
            return
        }
        completionHandler(.performDefaultHandling, nil)
        #endif
    }

    /// What the delegate heard of `task` (one with a completion handler), taken out: the
    /// 401 a cancelled challenge carried, the refusal of a redirect, or (Linux) a redirect
    /// left to the exchange; `nil` when nothing.
    func takePlainNote(of task: URLSessionTask) -> (response: HTTPURLResponse?, refusal: NetworkError?, followUp: URLRequest?)? {
        lock.lock()
        defer { lock.unlock() }
        guard let note = Self.find(ObjectIdentifier(task), in: &plainNotes, remove: true) else { return nil }
        #if canImport(FoundationNetworking)
        return (note.challengeResponse, note.refusal, note.followUp)
        #else
        return (note.challengeResponse, note.refusal, nil)
        #endif
    }

    #if !canImport(FoundationNetworking) || DEBUG
    /// The task's metrics arrived, at times after it completed: hands the moment its last
    /// response began to the task's ending, which may be waiting for it.
    func taskDidCollectMetrics(_ task: URLSessionTask, firstByteAt: Date?) {
        lock.lock()
        let metrics = filed(ObjectIdentifier(task))?.metrics
        lock.unlock()
        metrics?.metricsArrived(firstByteAt: firstByteAt)
    }
    #endif

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
        let handler = redirectHandler
        guard var next = handler.map({ $0(response, request) }) ?? request else {
            RedirectGuard.answer(task, nil, completionHandler)
            return
        }
        // What the host's handler returned is checked as the request's own headers were
        // (`allHTTPHeaderFields` takes CR LF on Linux): such a redirect is not followed.
        if handler != nil, let refused = HeaderFieldCheck.failure(in: next.allHTTPHeaderFields, url: next.url, source: "the host's redirectHandler") {
            record(refused, for: task)
            RedirectGuard.answer(task, nil, completionHandler)
            return
        }
        // A redirect to a pinned host that cannot be checked (Linux), or over plain HTTP, is not
        // followed: the task ends with the 3xx, reported as the refusal. (Never `task.cancel()`
        // here: swift-corelibs-foundation then traps on the completion handler.)
        if let refused = trustEvaluator?.refusal(for: next.url) {
            record(refused, for: task)
            RedirectGuard.answer(task, nil, completionHandler)
            return
        }
        let origin = task.originalRequest?.url ?? response.url
        if !Self.sameOrigin(origin, next.url) {
            next.setValue(nil, forHTTPHeaderField: "Authorization")
            next.setValue(nil, forHTTPHeaderField: "Cookie")
        }
        #if canImport(FoundationNetworking)
        if leftToExchange(next, task: task, response: response) {
            RedirectGuard.answer(task, nil, completionHandler)  // the task ends with the 3xx
            return
        }
        #endif
        RedirectGuard.answer(task, next, completionHandler)
    }

    #if canImport(FoundationNetworking)
    /// Whether `next`, a redirect of `task` that carried a body, keeps a method other than
    /// `GET` and `HEAD` (a 307 or 308; a 301 or 302 of anything but a POST), and is
    /// therefore not the session's to follow: swift-corelibs-foundation forgets the body of
    /// every redirect it follows (`HTTPURLProtocol`, `knownBody = .none`) and sends such a
    /// request empty, or with the old `Content-Length` and no bytes. The request's exchange
    /// sends it with the body instead (see ``BufferingObserver/followUp``,
    /// ``PlainTransfer``); a transfer of another kind (a download) fails with a typed error.
    private func leftToExchange(_ next: URLRequest, task: URLSessionTask, response: HTTPURLResponse) -> Bool {
        let method = next.httpMethod ?? "GET"
        let sent = task.originalRequest
        guard method != "GET", method != "HEAD",
              task is URLSessionUploadTask || sent?.httpBody?.isEmpty == false || sent?.httpBodyStream != nil
        else { return false }
        lock.lock()
        defer { lock.unlock() }
        guard let entry = filed(ObjectIdentifier(task)) else {
            note(on: task).followUp = next  // a task with a completion handler
            return true
        }
        if entry.observer is BufferingObserver {
            entry.followUp = next
        } else {
            entry.refusal = Self.unsentRedirect(response)  // a download
        }
        return true
    }

    /// The error of a redirect that keeps a body which cannot be sent again (a stream, a
    /// download's): not followed, rather than sent empty.
    @inline(never)
    static func unsentRedirect(_ response: HTTPURLResponse?) -> NetworkError {
        NetworkError(
            kind: .invalidRequest,
            message: "The server redirected a request whose body cannot be sent again (a stream, or a download's body); URLSession on Linux would send it empty, so the redirect is not followed",
            response: response
        )
    }
    #endif

    /// Keeps why `task`'s server was refused, for its end.
    private func record(_ refusal: NetworkError, for task: URLSessionTask) {
        lock.lock()
        if let entry = filed(ObjectIdentifier(task)) {
            entry.refusal = refusal
        } else {
            note(on: task).refusal = refusal  // a task with a completion handler
        }
        lock.unlock()
    }

    /// Whether two URLs share scheme, host and port.
    @inline(__always)  // one caller
    static func sameOrigin(_ lhs: URL?, _ rhs: URL?) -> Bool {
        guard let lhs, let rhs else { return false }
        let scheme = lhs.scheme
        guard same(scheme, rhs.scheme), same(lhs.host, rhs.host) else { return false }
        // -1 for a scheme without a default: no port is negative.
        let defaultPort = same(scheme, "https") ? 443 : same(scheme, "http") ? 80 : -1
        return (lhs.port ?? defaultPort) == (rhs.port ?? defaultPort)
    }

    /// Whether two optional texts are equal ignoring case (nil equals only nil); out of line,
    /// for four call sites.
    @inline(never)
    private static func same(_ lhs: String?, _ rhs: String?) -> Bool {
        lhs?.lowercased() == rhs?.lowercased()
    }
}
