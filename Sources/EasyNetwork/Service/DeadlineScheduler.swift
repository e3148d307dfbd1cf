import Foundation

/// Request deadlines on one timer for the whole process.
///
/// A timer per request costs a timer setup and teardown on every request, and a
/// cancelled `asyncAfter` item lingers until its time. Here a request adds an entry and
/// removes it when it completes, in a small array in the order they were added (only
/// attempts in flight have one, a few dozen at most in an app; the oldest usually
/// completes first). The one
/// timer is armed only when a new deadline is earlier than the armed one: with equal
/// timeouts, not again for each request. When it fires it runs what is due, in deadline
/// order (equal deadlines in the order they were added), and is armed for the earliest
/// entry left.
package final class DeadlineScheduler: @unchecked Sendable {  // unchecked: the fields below are guarded by `lock`
    package static let shared = DeadlineScheduler()

    private let lock: Lock
    /// Deadlines (uptime nanoseconds) in the order they were added (so of equal deadlines
    /// the first added comes first). A tuple, not a struct: no type of its own to describe.
    @exclusivity(unchecked) private var entries: [(key: Int, deadline: UInt64, fire: @Sendable () -> Void)]
    @exclusivity(unchecked) private var lastKey: Int
    /// What the timer is armed for; `UInt64.max` while it is not armed.
    @exclusivity(unchecked) private var armedFor: UInt64
    /// How often the timer was armed (for tests).
    @exclusivity(unchecked) private var armings: Int
    private let timer: DispatchSourceTimer

    /// A scheduler whose timer fires on `queue` (the shared one: ``ExchangeTimers/queue``).
    init(queue: DispatchQueue = ExchangeTimers.queue) {
        // Size: fields get their first values here, not where they are declared (in a
        // package type each initial value compiles a function with an unwind entry).
        lock = Lock()
        entries = []
        lastKey = 0
        armedFor = .max
        armings = 0
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.activate()
    }

    deinit {
        timer.cancel()
    }

    /// Calls `fire` at `deadline` unless ``cancel(_:)`` comes first; returns the key.
    package func schedule(at deadline: DispatchTime, _ fire: @escaping @Sendable () -> Void) -> Int {
        let due = deadline.uptimeNanoseconds
        lock.lock()
        defer { lock.unlock() }
        lastKey += 1
        entries.append((lastKey, due, fire))
        if due < armedFor {
            arm(for: due)
        }
        return lastKey
    }

    /// Forgets a deadline. The timer stays armed: when it fires with nothing due it is
    /// armed for the next entry, or left alone when there is none.
    package func cancel(_ key: Int) {
        lock.lock()
        var index = 0
        while index < entries.count, entries[index].key != key {
            index += 1
        }
        let removed = index < entries.count ? take(index) : nil
        lock.unlock()
        // The closure (and what it holds) is released outside the lock.
        withExtendedLifetime(removed) {}
    }

    /// How often the timer was armed so far.
    var timesArmed: Int {
        lock.lock()
        defer { lock.unlock() }
        return armings
    }

    /// Under `lock`. (Out of line: two callers.)
    @inline(never)
    private func arm(for deadline: UInt64) {
        armedFor = deadline
        armings += 1
        timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .milliseconds(5))
    }

    /// The entry at `index`, taken out (one `remove` for both callers); under `lock`.
    @inline(never)
    private func take(_ index: Int) -> @Sendable () -> Void {
        entries.remove(at: index).fire
    }

    /// Runs what is due, one entry at a time outside the lock, earliest first (of equal
    /// deadlines the first added), then arms the timer for the earliest entry left.
    private func tick() {
        let now = DispatchTime.now().uptimeNanoseconds
        while true {
            lock.lock()
            var earliest = 0
            var index = 1
            while index < entries.count {
                if entries[index].deadline < entries[earliest].deadline {
                    earliest = index
                }
                index += 1
            }
            guard earliest < entries.count else {
                armedFor = .max
                lock.unlock()
                return
            }
            let deadline = entries[earliest].deadline
            guard deadline <= now else {
                arm(for: deadline)
                lock.unlock()
                return
            }
            let fire = take(earliest)
            lock.unlock()
            fire()
        }
    }
}
