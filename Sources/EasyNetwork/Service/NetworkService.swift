import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transport: the only type that makes and holds a `URLSession` (its delegate is
/// `SessionDelegate`; a body file's `MultipartWriter` picks the kind of task for it).
///
/// Each ``HostConfiguration`` owns one `NetworkService`, which owns one session, made on
/// first use from an ephemeral configuration with no `URLCache` and invalidated
/// (`finishTasksAndInvalidate`) when the host goes away. It never uses
/// `URLSession.shared` and never makes a session per request. The nested
/// ``Method`` and ``QueryType`` describe requests.
public final class NetworkService: @unchecked Sendable {
    // unchecked: configuration, session and invalidated are only touched under `lock`
    // (so they are `@exclusivity(unchecked)`: no dynamic access checks).
    // Size: no initial values where fields are declared (in a public type each compiles a
    // function with an unwind entry): `init` sets every one (`Optional<T>` spelled out:
    // `T?` has an implicit `= nil`).
    private let lock: Lock
    @exclusivity(unchecked) private var configuration: URLSessionConfiguration
    @exclusivity(unchecked) private var session: Optional<URLSession>
    @exclusivity(unchecked) private var invalidated: Bool
    /// The session's delegate (the host's redirect decision lives there).
    let delegate: SessionDelegate
    private let delegateQueue: OperationQueue

    init(configuration: URLSessionConfiguration) {
        lock = Lock()
        session = nil
        invalidated = false
        delegate = SessionDelegate()
        self.configuration = Self.prepared(configuration)
        delegateQueue = OperationQueue()
        delegateQueue.name = "EasyNetwork.NetworkService.delegate"
        delegateQueue.maxConcurrentOperationCount = 1
    }

    /// Starts a data task for `request` (an upload from `bodyFile` when given) and calls
    /// `completion` once, on the session's delegate queue, with what arrived. The task
    /// is delegate-driven, so `activity` hears of every byte sent or received.
    func dataTask(
        with request: URLRequest,
        bodyFile: MultipartBodyFile? = nil,
        priority: Float?,
        uploadProgress: (@Sendable (Int64, Int64) -> Void)? = nil,
        activity: (any TransferActivity)? = nil,
        completion: @escaping @Sendable (TransportOutcome) -> Void
    ) -> TransportTask? {
        guard let session = currentSession() else {
            completion(TransportOutcome(request, failed: .cancelled))
            return nil
        }
        // A body file goes as its writer says (never the file itself on Linux: see
        // EasyNetworkUploads' UploadBody); outcomes name the request as built.
        var uploadProgress = uploadProgress
        let task: URLSessionTask
        if let bodyFile {
            guard let upload = bodyFile.writer.uploadTask(from: bodyFile.url, request: request, in: session, progress: uploadProgress) else {
                completion(TransportOutcome(request, failed: .fileDoesNotExist))
                return nil
            }
            (task, uploadProgress) = upload
        } else {
            task = session.dataTask(with: request)
        }
        return start(task, request: request, priority: priority, completion: completion, observer: nil, uploadProgress: uploadProgress, activity: activity)
    }

    /// Files a delegate-driven task (buffered, or streaming to `observer`) and resumes it.
    @inline(never)  // two callers
    private func start(_ task: URLSessionTask, request: URLRequest?, priority: Float?, completion: (@Sendable (TransportOutcome) -> Void)?,
                       observer: (any TransferObserver)?, uploadProgress: (@Sendable (Int64, Int64) -> Void)?, activity: (any TransferActivity)?) -> TransportTask {
        if let priority {
            task.priority = priority
        }
        delegate.register(task, request: request, completion: completion, observer: observer, uploadProgress: uploadProgress, activity: activity)
        task.resume()
        return TransportTask(task)
    }

    /// Starts a task with a completion handler for `request` (no body file, nobody
    /// watching its bytes) and calls `completion` once, on the session's delegate queue:
    /// the cheaper kind of task on Linux, where the session keeps the idle timeout itself
    /// (see ``sessionKeepsIdle(_:)``). Nothing hears its bytes while it runs.
    func plainTask(with request: URLRequest, priority: Float?, completion: @escaping @Sendable (TransportOutcome) -> Void) -> TransportTask? {
        guard let session = currentSession() else {
            completion(TransportOutcome(request, failed: .cancelled))
            return nil
        }
        let transfer = PlainTransfer(request: request, delegate: delegate, completion: completion)
        let task = session.dataTask(with: request) { transfer.complete($0, $1, $2) }
        transfer.task = task
        if let priority {
            task.priority = priority
        }
        task.resume()
        return TransportTask(task)
    }

    /// Whether this platform's URLSession keeps an idle timeout of `idle` seconds exactly,
    /// on a task with a completion handler, as EasyNetwork's own clock would.
    ///
    /// On Linux (swift-corelibs-foundation) the request's `timeoutInterval` (when set, not
    /// given to the initializer), cut to whole seconds, runs a timer set 1 ms short with
    /// 1 ms of leeway that every header line and piece of body sent or received starts
    /// over (`_EasyHandle.resetTimer`): measured, a stall ended 0.9995–1.037 s after the
    /// server sent its last bytes for `timeoutInterval = 1` (under load), and a body
    /// trickling a byte every 0.9 s succeeded. So a whole number of seconds (1 s to a year) is kept
    /// exactly there; a fraction would be cut. Elsewhere every task stays delegate-driven
    /// and EasyNetwork keeps the clock (Apple's own timer promises no such precision).
    static func sessionKeepsIdle(_ idle: TimeInterval) -> Bool {
        #if canImport(FoundationNetworking)
        idle >= 1 && idle <= 31_536_000 && idle.rounded(.down) == idle
        #else
        false
        #endif
    }

    /// The `timeoutInterval` a request is built with: the idle timeout itself when the
    /// session may keep it (`exact`, see ``sessionKeepsIdle(_:)``), otherwise a backstop a
    /// second past it, in whole seconds (finite: corelibs stops the process on a timeout
    /// that is not a number or does not fit in an `Int`).
    static func requestTimeout(forIdle idle: TimeInterval, exact: Bool) -> TimeInterval {
        if exact, sessionKeepsIdle(idle) { return idle }
        guard idle > 0 else { return 1 }  // NaN too: the clock fires at once
        return (min(idle, 3_153_600_000) + 1).rounded(.up)
    }

    /// Starts a transfer whose every event goes to `observer` (downloads written to
    /// disk as they arrive); `nil` when the session is gone.
    package func streamingTask(
        with request: URLRequest,
        priority: Float?,
        observer: any TransferObserver,
        uploadProgress: (@Sendable (Int64, Int64) -> Void)? = nil
    ) -> TransportTask? {
        guard let session = currentSession() else { return nil }
        return start(session.dataTask(with: request), request: request, priority: priority, completion: nil, observer: observer, uploadProgress: uploadProgress, activity: nil)
    }

    /// How many tasks the session delegate keeps state for.
    var trackedTaskCount: Int {
        delegate.trackedTaskCount
    }

    /// Lets running tasks finish on the current session; the next request makes a new one,
    /// with new connections (none made before a change of the host's trust evaluator is reused).
    @_alwaysEmitIntoClient  // only the pinning product renews a session: no function here
    package func renewSession() {
        dropSession(invalidating: false, configuration: nil)
    }

    /// Lets running tasks finish, then releases the session. Later requests fail
    /// as cancelled.
    func invalidate() {
        dropSession(invalidating: true, configuration: nil)
    }

    /// Uses `configuration` for the next session; the current one ends gracefully.
    func replaceConfiguration(_ configuration: URLSessionConfiguration) {
        dropSession(invalidating: false, configuration: Self.prepared(configuration))
    }

    /// Lets running tasks finish on the current session, which the next request replaces
    /// (made from `configuration` when given), unless `invalidating`.
    @inline(never) @usableFromInline  // three callers
    func dropSession(invalidating: Bool, configuration: URLSessionConfiguration?) {
        lock.lock()
        if invalidating { invalidated = true }
        if let configuration { self.configuration = configuration }
        let old = session
        session = nil
        lock.unlock()
        old?.finishTasksAndInvalidate()
    }

    private func currentSession() -> URLSession? {
        lock.lock()
        defer { lock.unlock() }
        if invalidated { return nil }
        if let session { return session }
        let made = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
        session = made
        return made
    }

    @inline(never)  // two callers
    private static func prepared(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        let copy = (configuration.copy() as? URLSessionConfiguration) ?? URLSessionConfiguration.ephemeral
        copy.urlCache = nil
        copy.requestCachePolicy = .reloadIgnoringLocalCacheData
        return copy
    }
}
