import Foundation

/// Brings the end of one task together with its metrics. Apple platforms report task
/// metrics (`urlSession(_:task:didFinishCollecting:)`) at times only after the task
/// completed; an ending that comes first then waits for them, at most ``patience``, so
/// that the completion still carries them. Linux never reports task metrics, so nothing
/// waits there. The ending runs exactly once, whichever comes first.
final class MetricsRendezvous: Sendable {
    /// Whether this platform reports task metrics at all.
    #if canImport(FoundationNetworking)
    static let platformReportsMetrics = false
    #else
    static let platformReportsMetrics = true
    #endif

    private struct State {
        /// Metrics arrived, or the ending stopped waiting for them.
        var settled = false
        var firstByteAt: Date?
        var ending: (@Sendable (Date?) -> Void)?
    }

    private let state = Protected(State())
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
        let ending: (@Sendable (Date?) -> Void)? = state.write { state in
            guard !state.settled else { return nil }
            state.settled = true
            state.firstByteAt = firstByteAt
            defer { state.ending = nil }
            return state.ending
        }
        ending?(firstByteAt)
    }

    /// The task ended: `end` runs once with the first byte time the metrics gave (`nil`
    /// when none came). At once, on the caller's thread, when the metrics arrived already
    /// or never come on this platform; otherwise when they arrive, or on `queue` after
    /// ``patience``, whichever is first.
    func taskEnded(on queue: OperationQueue, _ end: @escaping @Sendable (Date?) -> Void) {
        let now: Date?? = state.write { state in
            if state.settled || !expectsMetrics { return .some(state.firstByteAt) }
            state.ending = end
            return .none
        }
        if let firstByteAt = now {
            end(firstByteAt)
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + patience) { [self] in
            queue.addOperation { [self] in
                let ending: (@Sendable (Date?) -> Void)? = state.write { state in
                    state.settled = true
                    defer { state.ending = nil }
                    return state.ending
                }
                ending?(nil)
            }
        }
    }
}
