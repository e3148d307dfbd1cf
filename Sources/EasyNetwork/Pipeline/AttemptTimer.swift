import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The clock of one attempt, and the one place a request times out: hears every byte
/// the transfer moves (``TransferActivity``) and cancels the attempt's task once its
/// ``AttemptDeadline`` passes; ``stop()`` then tells which limit it was.
///
/// Bytes moving only stamp a time under the lock. The timer (one entry in the shared
/// ``DeadlineScheduler``) fires at the earliest moment the attempt could expire; when
/// bytes moved since, it is set again for the new moment instead of firing. An attempt
/// on a task with a completion handler hears no bytes: its session keeps the idle limit
/// (``NetworkService/sessionKeepsIdle(_:)``) and this clock only the total one, with no
/// entry at all when there is none.
final class AttemptTimer: TransferActivity, @unchecked Sendable {
    // unchecked: the `var`s are read and written only under `lock` (its exchange's).
    private let deadline: AttemptDeadline
    private let start: DispatchTime
    private let lock: Lock
    /// The attempt's transfer while armed.
    private var task: TransportTask?
    private var lastActivity: DispatchTime
    /// The scheduler key while armed.
    private var key: Int?
    private var stopped = false
    /// The session keeps the idle limit (see ``leaveIdleToSession()``).
    private var idleKeptBySession: Bool
    /// The `URLError.timedOut` of an attempt that expired.
    private var timedOut: URLError?

    /// A clock that starts now, keeping its state under `lock` (the exchange's: one
    /// mutex per request); ``arm(_:)`` lets it fire.
    init(_ deadline: AttemptDeadline, lock: Lock, idleKeptBySession: Bool = false) {
        self.deadline = deadline
        self.lock = lock
        self.idleKeptBySession = idleKeptBySession
        start = DispatchTime.now()
        lastActivity = start
    }

    /// The attempt went out on a task with a completion handler, whose session keeps the
    /// idle limit: from now on this clock keeps only the total one.
    func leaveIdleToSession() {
        lock.lock()
        idleKeptBySession = true
        lock.unlock()
    }

    /// Sets the timer for the first moment the attempt could expire, when it cancels `task`.
    func arm(_ task: TransportTask) {
        lock.lock()
        self.task = task
        // Measured from the clock's start (moments ago), without reading the clock again:
        // an attempt already past its limit then expires when the scheduler runs it.
        check(now: start)
    }

    #if canImport(FoundationNetworking)
    /// The attempt goes on on `task` (a redirect the exchange follows itself, on Linux):
    /// an expiry cancels it. `false` when the clock has stopped (it expired meanwhile).
    func follow(_ task: TransportTask) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if !stopped { self.task = task }
        return !stopped
    }
    #endif

    func transferMoved() {
        let now = DispatchTime.now()
        lock.lock()
        lastActivity = now
        lock.unlock()
    }

    /// Disarms the timer for good (the attempt ended or was cancelled); returns the
    /// timeout error when it had expired. The caller holds `lock`.
    @discardableResult
    func stop() -> URLError? {
        stopped = true
        key.map(DeadlineScheduler.shared.cancel)
        key = nil
        task = nil
        return timedOut
    }

    /// Fires when the attempt's time is up, or sets the timer again for its new moment.
    private func check() {
        let now = DispatchTime.now()
        lock.lock()
        check(now: now)
    }

    /// ``check()`` with the lock taken; lets go of it.
    private func check(now: DispatchTime) {
        key = nil
        guard !stopped else { return lock.unlock() }
        let limit = idleKeptBySession ? deadline.totalExpiry(start: start) : deadline.expiry(start: start, lastActivity: lastActivity)
        guard let expiry = limit else { return lock.unlock() }  // no limit of its own
        guard expiry <= now else {
            // A strong reference (a weak one costs every request a side table): every
            // way the attempt ends calls stop(), which removes the entry.
            key = DeadlineScheduler.shared.schedule(at: expiry) { [self] in check() }
            return lock.unlock()
        }
        stopped = true
        // Kept by the session, the idle limit never fires here: only the total one can.
        timedOut = idleKeptBySession ? deadline.totalError(deadline.total ?? 0) : deadline.error(start: start, lastActivity: lastActivity)
        let expired = task
        task = nil
        lock.unlock()
        // Its transfer ends as cancelled, and ``stop()`` tells the exchange why.
        expired?.cancel()
    }
}
