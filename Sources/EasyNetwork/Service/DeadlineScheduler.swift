import Foundation

/// Request deadlines on one timer for the whole process.
///
/// A timer per request costs a timer setup and teardown on every request, and a
/// cancelled `asyncAfter` item lingers until its time. Here a request adds an entry and
/// removes it when it completes (a dictionary insert and remove under a lock); the one
/// timer is armed for the earliest deadline only, so with the usual equal timeouts it
/// is re-armed rarely, and it never fires while nothing is pending.
final class DeadlineScheduler: @unchecked Sendable {
    static let shared = DeadlineScheduler()

    private struct Entry {
        let deadline: DispatchTime
        let fire: @Sendable () -> Void
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var nextKey = 0
        var armedFor: DispatchTime?
    }

    private let state = Protected(State())
    private let timer: DispatchSourceTimer

    private init() {
        timer = DispatchSource.makeTimerSource(queue: ExchangeTimers.queue)
        timer.schedule(deadline: .distantFuture)
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.activate()
    }

    /// Calls `fire` at `deadline` unless ``cancel(_:)`` comes first; returns the key.
    func schedule(at deadline: DispatchTime, _ fire: @escaping @Sendable () -> Void) -> Int {
        state.write { state in
            state.nextKey += 1
            state.entries[state.nextKey] = Entry(deadline: deadline, fire: fire)
            if state.armedFor.map({ deadline < $0 }) ?? true {
                state.armedFor = deadline
                timer.schedule(deadline: deadline, leeway: .milliseconds(5))
            }
            return state.nextKey
        }
    }

    /// Forgets a deadline.
    func cancel(_ key: Int) {
        state.write { _ = $0.entries.removeValue(forKey: key) }
    }

    private func tick() {
        let now = DispatchTime.now()
        let due: [Entry] = state.write { state in
            let due = state.entries.filter { $0.value.deadline <= now }
            for key in due.keys {
                state.entries.removeValue(forKey: key)
            }
            let next = state.entries.values.map(\.deadline).min()
            state.armedFor = next
            timer.schedule(deadline: next ?? .distantFuture, leeway: .milliseconds(5))
            return Array(due.values)
        }
        due.forEach { $0.fire() }
    }
}
