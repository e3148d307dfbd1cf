import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of a host's session: answers authentication challenges so that a 401
/// never hangs (the response such a challenge carried is reported instead), collects the
/// body of a request that needs byte events into one ``TransportOutcome`` (with the moment
/// its response began to arrive), and hands every event of a streaming task (a download,
/// written to disk) to its ``TransferObserver``. Those tasks have no completion handlers, because swift-corelibs-foundation tells a
/// delegate about bytes received and sent only for such tasks, and those moments reset
/// the idle timeout (``TransferActivity``). A task with a completion handler
/// (``PlainTransfer``) is never filed here: only its challenge's 401 is kept until its
/// completion takes it. On Apple platforms a task's end waits briefly for its task
/// metrics when they come late (``MetricsRendezvous``). Upload progress goes to whoever
/// asked for it.
///
/// It holds only a weak reference to the host (for its redirect decision), so the session
/// (which keeps its delegate alive until invalidated) never keeps a host alive.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // unchecked: `entries` is only touched under `lock`, `host` is set before
    // any task exists; an entry's transfer state only by the session's serial delegate queue.

    /// What the delegate keeps for one running task (its one allocation): a buffered one
    /// (``completion``), a streaming one (``observer``), or neither: a note on a task with
    /// a completion handler. Its notes are touched under the delegate's lock while it is
    /// filed, its transfer state by the session's serial delegate queue, and by one
    /// thread once taken out.
    final class Entry {
        /// Kept so that its identity stays unique while the entry is filed.
        let task: URLSessionTask
        /// The request as built, which a buffered transfer's outcome names.
        let request: URLRequest?
        /// Where a buffered transfer's outcome goes.
        let completion: (@Sendable (TransportOutcome) -> Void)?
        /// Who hears every event of a streaming transfer.
        let observer: (any TransferObserver)?
        let activity: (any TransferActivity)?
        let uploadProgress: (@Sendable (_ sent: Int64, _ expected: Int64) -> Void)?
        /// A buffered transfer's response, body, and when its response began to arrive.
        var response: HTTPURLResponse?
        var body: Data
        /// Whether `body` holds a piece yet (asked instead of `Data.isEmpty`, which compiles
        /// to a switch over `Data`'s representations).
        var bodyStarted: Bool
        var firstByteAt: Date?
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

        init(task: URLSessionTask, request: URLRequest?, completion: (@Sendable (TransportOutcome) -> Void)?,
             observer: (any TransferObserver)?, activity: (any TransferActivity)?, uploadProgress: (@Sendable (Int64, Int64) -> Void)?) {
            self.task = task
            self.request = request
            self.completion = completion
            self.observer = observer
            self.activity = activity
            self.uploadProgress = uploadProgress
            body = Data()
            bodyStarted = false
        }
    }

    let lock = Lock()
    // The fields below are `@exclusivity(unchecked)`: `lock` keeps every access exclusive.
    /// Running tasks and notes on tasks with a completion handler (the 401 a cancelled
    /// challenge carried, a refused redirect, a redirect left to the exchange) until their
    /// completions take them; in no order, scanned from the newest: a host usually has a
    /// handful in flight, and an array of class references brings no dictionary code.
    @exclusivity(unchecked) private var entries: [Entry] = []

    /// The host, whose settings hold its redirect decision and its trust evaluator: weak,
    /// so that the session (which keeps its delegate alive until invalidated) never keeps a
    /// host alive. Set once, by the host's initializer, before any task exists.
    weak var host: HostConfiguration?

    #if !canImport(FoundationNetworking) || DEBUG
    private let expectsMetrics: Bool

    /// A delegate whose tasks' ends wait for task metrics when `expectsMetrics` (tests
    /// take Apple's side on Linux).
    init(expectsMetrics: Bool = MetricsRendezvous.platformReportsMetrics) {
        self.expectsMetrics = expectsMetrics
    }
    #endif

    /// Who judges the host's servers beyond the system's trust (pinning), if anyone: one of
    /// the host's settings (no field and no lock of the delegate's own). The weak `host` is
    /// there while any of its tasks runs: a task's completion (or a download's observer)
    /// holds its exchange's service, which holds the host.
    var trustEvaluator: (any ServerTrustEvaluator)? {
        host?.snapshot().trustEvaluator
    }

    /// Files a task before it resumes: a buffered one, whose outcome goes to `completion`
    /// once (it names `request`), or a streaming one, whose every event goes to
    /// `observer`; `activity` is told whenever its bytes move.
    func register(
        _ task: URLSessionTask,
        request: URLRequest?,
        completion: (@Sendable (TransportOutcome) -> Void)?,
        observer: (any TransferObserver)?,
        uploadProgress: (@Sendable (Int64, Int64) -> Void)?,
        activity: (any TransferActivity)?
    ) {
        let entry = Entry(task: task, request: request, completion: completion, observer: observer, activity: activity, uploadProgress: uploadProgress)
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
        return entries.count
    }

    /// Where `task`'s entry is filed; call under `lock`.
    private func index(of task: URLSessionTask) -> Int? {
        var index = entries.count
        while index > 0 {
            index -= 1
            if entries[index].task === task { return index }
        }
        return nil
    }

    /// The entry at `index`, taken out; call under `lock`.
    private func take(_ index: Int) -> Entry {
        entries.remove(at: index)  // the same code as every array of class references
    }

    /// `task`'s entry, or a new note on it (a task with a completion handler); call under `lock`.
    func entryOrNote(_ task: URLSessionTask) -> Entry {
        if let index = index(of: task) { return entries[index] }
        let note = Entry(task: task, request: nil, completion: nil, observer: nil, activity: nil, uploadProgress: nil)
        entries.append(note)
        return note
    }

    /// `task`'s entry; tells whoever waits on the task's activity that bytes moved.
    @inline(never)  // three callers
    private func moved(_ task: URLSessionTask) -> Entry? {
        lock.lock()
        let entry = index(of: task).map { entries[$0] }
        lock.unlock()
        entry?.activity?.transferMoved()
        return entry
    }

    @inline(__always)  // into its one caller, the witness (else a copy without `session` and a call)
    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let entry = moved(dataTask), let http = response as? HTTPURLResponse else {
            completionHandler(.allow)
            return
        }
        if let observer = entry.observer {
            completionHandler(observer.transferDidReceive(http) ? .allow : .cancel)
            return
        }
        entry.response = http
        if entry.firstByteAt == nil { entry.firstByteAt = Date() }
        completionHandler(.allow)
    }

    @inline(__always)  // into its one caller, the witness (else a copy without `session` and a call)
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let entry = moved(dataTask) else { return }
        if let observer = entry.observer {
            observer.transferDidReceive(data)
            return
        }
        if entry.firstByteAt == nil { entry.firstByteAt = Date() }
        if entry.bodyStarted {
            entry.body.append(data)
        } else {
            entry.body = data  // shares the bytes of a body that comes in one piece
            entry.bodyStarted = true
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        moved(task)?.uploadProgress?(totalBytesSent, totalBytesExpectedToSend)
    }

    @inline(__always)  // into its one caller, the witness (else a copy without `session` and a call)
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        // A note on a task with a completion handler stays for that completion.
        guard let index = index(of: task), entries[index].observer != nil || entries[index].completion != nil else {
            lock.unlock()
            return
        }
        #if !canImport(FoundationNetworking) || DEBUG
        let filed = entries[index]
        if let metrics = filed.metrics {
            filed.error = error
            lock.unlock()
            metrics.taskEnded(on: session.delegateQueue) { [self] firstByteAt in
                lock.lock()
                let entry = self.index(of: task).map(take)
                lock.unlock()
                if let entry { end(entry, error: entry.error, firstByteAt: firstByteAt) }
            }
            return
        }
        #endif
        let entry = take(index)
        lock.unlock()
        end(entry, error: error, firstByteAt: nil)
    }

    /// Tells a task's observer, or its completion, how it ended; its entry is gone already.
    /// `firstByteAt`: when the task metrics say its last response began. An observer hears
    /// the outcome's error (the refusal of its server in place of the task's), after the
    /// 401 a cancelled challenge carried, if any, as the response.
    private func end(_ entry: Entry, error: (any Error)?, firstByteAt: Date?) {
        guard let request = entry.request else { return }
        let outcome = Self.outcome(request, entry.response, entry.body, error, note: entry, firstByteAt: firstByteAt ?? entry.firstByteAt, buffered: true)
        guard let observer = entry.observer else {
            entry.completion?(outcome)
            return
        }
        if let firstByteAt { observer.transferDidCollectMetrics(firstByteAt: firstByteAt) }
        // A streamed transfer keeps no response here: one in the outcome is the challenge's.
        let failure = outcome.error
        if failure == nil, let challenged = outcome.response {
            _ = observer.transferDidReceive(challenged)
        }
        observer.transferDidComplete(failure)
    }

    /// The 401 a cancelled challenge of the entry's task carried, when the task ended
    /// cancelled (by that challenge); `nil` otherwise.
    @inline(__always)  // one caller
    private static func challenged(_ entry: Entry, _ error: (any Error)?) -> HTTPURLResponse? {
        guard let challenged = entry.challengeResponse, (error as? URLError)?.errorCode == NSURLErrorCancelled else { return nil }
        return challenged
    }

    /// The outcome of a buffered transfer, or of a task with a completion handler, from
    /// what arrived and what the delegate heard of the task (`note`): the refusal of its
    /// server in place of the error; the 401 a cancelled challenge carried as the
    /// response, with no error (`buffered`: its first byte then, unless known); a
    /// redirect left to the exchange (Linux).
    @inline(never)  // two callers
    private static func outcome(_ request: URLRequest, _ response: HTTPURLResponse?, _ data: Data, _ error: (any Error)?,
                                note: Entry?, firstByteAt: Date?, buffered: Bool) -> TransportOutcome {
        var http = response
        var failure = error
        var first = firstByteAt
        if let note {
            if let refusal = note.refusal {
                failure = refusal
            } else if let challenged = challenged(note, error) {
                http = challenged
                failure = nil
                if buffered, first == nil { first = Date() }
            }
        }
        #if canImport(FoundationNetworking)
        let redirect = error == nil ? note?.followUp : nil  // the exchange sends it with the body
        #else
        let redirect: URLRequest? = nil
        #endif
        return TransportOutcome(request: request, response: http, data: data, error: failure, firstByteAt: first, redirect: redirect, streamedBytes: nil)
    }

    /// The outcome of `task`, one with a completion handler (``PlainTransfer``), from what
    /// that handler got and what the delegate heard of the task (taken out): the 401 a
    /// cancelled challenge carried (the task ends cancelled right after), the refusal of a
    /// redirect or (Linux) a redirect left to the exchange (the task ends with the 3xx).
    func plainOutcome(of task: URLSessionTask?, request: URLRequest, data: Data?, response: URLResponse?, error: (any Error)?) -> TransportOutcome {
        let http = response as? HTTPURLResponse
        var note: Entry?
        // The delegate notes nothing on any other success, which never looks.
        if let task, error != nil || http.map({ $0.statusCode >= 300 && $0.statusCode < 400 }) == true {
            lock.lock()
            note = index(of: task).map(take)
            lock.unlock()
        }
        return Self.outcome(request, http, data ?? Data(), error, note: note, firstByteAt: nil, buffered: false)
    }

    @inline(__always)  // into its one caller, the witness (else a copy without `session` and a call)
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
        if let response = challenge.failureResponse as? HTTPURLResponse {
            lock.lock()
            entryOrNote(task).challengeResponse = response
            lock.unlock()
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        // The system's trust first, then the host's pins (swift-corelibs-foundation sends no
        // server-trust challenge: pinned hosts are refused there before any request is sent).
        if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust {
            // Fail closed: were the host ever gone while its task runs (its tasks hold it),
            // its pins would not be skipped: the connection is refused instead.
            guard let host else {
                completionHandler(.cancelAuthenticationChallenge, nil)
                return
            }
            if let evaluator = host.snapshot().trustEvaluator {
                let answer = evaluator.evaluate(challenge)
                if let refused = answer.refused { record(refused, for: task) }
                completionHandler(answer.disposition, answer.credential)
                return
            }
        }
        completionHandler(.performDefaultHandling, nil)
        #endif
    }

    #if canImport(FoundationNetworking)
    /// Whether `request` carries a body, bytes or a stream, that a redirect would lose
    /// (Linux). Here, not with the redirect, where it is asked: this file handles `Data`
    /// already, and a file that does carries `Data`'s outlined helpers.
    @inline(never)
    static func carriesBody(_ request: URLRequest?) -> Bool {
        request?.httpBody?.isEmpty == false || request?.httpBodyStream != nil
    }
    #endif

    #if !canImport(FoundationNetworking) || DEBUG
    /// The task's metrics arrived, at times after it completed: hands the moment its last
    /// response began to the task's ending, which may be waiting for it.
    func taskDidCollectMetrics(_ task: URLSessionTask, firstByteAt: Date?) {
        lock.lock()
        let metrics = index(of: task).map { entries[$0] }?.metrics
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
}
