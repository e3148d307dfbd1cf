// Compiled where task metrics exist (Apple platforms), and in debug builds so that Linux
// tests drive the same code; a Linux release build carries none of it.
#if !canImport(FoundationNetworking) || DEBUG
import Foundation

/// Brings the end of one task together with its metrics. Apple platforms report task
/// metrics (`urlSession(_:task:didFinishCollecting:)`) at times only after the task
/// completed; an ending that comes first then waits for them, at most ``patience``, so
/// that the completion still carries them. Linux never reports task metrics, so nothing
/// waits there. The ending runs exactly once, whichever comes first.
final class MetricsRendezvous: @unchecked Sendable {
    // unchecked: settled, firstByteAt and ending are only touched under `lock`.

    /// Whether this platform reports task metrics at all.
    static var platformReportsMetrics: Bool {
        #if canImport(FoundationNetworking)
        false
        #else
        true
        #endif
    }

    private let lock = Lock()
    /// Metrics arrived, or the ending stopped waiting for them.
    private var settled = false
    private var firstByteAt: Date?
    private var ending: (@Sendable (Date?) -> Void)?
    private let expectsMetrics: Bool
    /// The longest an ending waits for metrics that have not arrived.
    let patience: TimeInterval

    init(expectsMetrics: Bool = MetricsRendezvous.platformReportsMetrics, patience: TimeInterval = 0.1) {
        self.expectsMetrics = expectsMetrics
        self.patience = patience
    }

    /// The task's metrics arrived, with the moment its last response began (if it did).
    /// An ending waiting for them runs now, on the caller's thread; metrics that come
    /// after the ending stopped waiting are ignored.
    func metricsArrived(firstByteAt: Date?) {
        lock.lock()
        if settled {
            lock.unlock()
            return
        }
        settled = true
        self.firstByteAt = firstByteAt
        let ending = takeEnding()
        lock.unlock()
        ending?(firstByteAt)
    }

    /// The task ended: `end` runs once with the first byte time the metrics gave (`nil`
    /// when none came). At once, on the caller's thread, when the metrics arrived already
    /// or never come on this platform; otherwise when they arrive, or on `queue` after
    /// ``patience``, whichever is first.
    func taskEnded(on queue: OperationQueue, _ end: @escaping @Sendable (Date?) -> Void) {
        lock.lock()
        if settled || !expectsMetrics {
            let firstByteAt = firstByteAt
            lock.unlock()
            end(firstByteAt)
            return
        }
        ending = end
        lock.unlock()
        DispatchQueue.global().asyncAfter(deadline: .now() + patience) { [self] in
            queue.addOperation { [self] in
                lock.lock()
                settled = true
                let ending = takeEnding()
                lock.unlock()
                ending?(nil)
            }
        }
    }

    /// The waiting ending, cleared so that it runs once; call under `lock`.
    private func takeEnding() -> (@Sendable (Date?) -> Void)? {
        defer { ending = nil }
        return ending
    }
}
#endif
