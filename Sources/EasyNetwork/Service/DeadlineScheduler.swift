import Foundation

/// Request deadlines on one timer for the whole process.
///
/// A timer per request costs a timer setup and teardown on every request, and a
/// cancelled `asyncAfter` item lingers until its time. Here a request adds an entry and
/// removes it when it completes, in a short list, newest first (only attempts in flight
/// have one, a few dozen at most in an app). The one
/// timer is armed only when a new deadline is earlier than the armed one: with equal
/// timeouts, not again for each request. When it fires it runs what is due, in deadline
/// order (equal deadlines in the order they were added), and is armed for the earliest
/// entry left.
package final class DeadlineScheduler: @unchecked Sendable {  // unchecked: the fields below are guarded by `lock`
    package static let shared = DeadlineScheduler()

    /// One deadline (uptime nanoseconds), a link of the list. A class, not an element of an
    /// array: a closure kept in an array (or a tuple in one) is stored reabstracted, which
    /// compiles thunks and allocates a context each way; a link is one allocation, and the
    /// list needs no array code. Touched only under the scheduler's `lock`.
    private final class Deadline {
        let key: Int
        let due: UInt64
        let fire: @Sendable () -> Void
        /// The entry added before this one.
        var next: Deadline?

        init(key: Int, due: UInt64, fire: @escaping @Sendable () -> Void, next: Deadline?) {
            self.key = key
            self.due = due
            self.fire = fire
            self.next = next
        }
    }

    private let lock: Lock
    /// The entry added last (so of equal deadlines the first added comes last).
    @exclusivity(unchecked) private var newest: Deadline?
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
        newest = nil
        lastKey = 0
        armedFor = .max
        armings = 0
        let made = DispatchSource.makeTimerSource(queue: queue)
        timer = made
        made.setEventHandler { [weak self] in self?.tick() }
        made.activate()
    }

    deinit {
        arm(for: nil)
    }

    /// Calls `fire` at `deadline` unless ``cancel(_:)`` comes first; returns the key.
    @inline(never)  // one copy for its callers
    package func schedule(at deadline: DispatchTime, _ fire: @escaping @Sendable () -> Void) -> Int {
        let due = deadline.uptimeNanoseconds
        lock.lock()
        defer { lock.unlock() }
        lastKey += 1
        newest = Deadline(key: lastKey, due: due, fire: fire, next: newest)
        if due < armedFor {
            arm(for: due)
        }
        return lastKey
    }

    /// Forgets a deadline. The timer stays armed: when it fires with nothing due it is
    /// armed for the next entry, or left alone when there is none.
    @inline(never)  // one copy for its callers
    package func cancel(_ key: Int) {
        lock.lock()
        var found = newest
        while let entry = found, entry.key != key {
            found = entry.next
        }
        if let found { unlink(found) }
        lock.unlock()
        // The closure (and what it holds) is released outside the lock.
        withExtendedLifetime(found) {}
    }

    /// How often the timer was armed so far.
    var timesArmed: Int {
        lock.lock()
        defer { lock.unlock() }
        return armings
    }

    /// Arms the timer for `deadline`, under `lock`; or (`nil`, from `deinit`) cancels it.
    /// (Out of line: three callers. One place calls the timer: elsewhere a call copies the
    /// timer out of its existential box first, an outlined copy function of its own.)
    @inline(never)
    private func arm(for deadline: UInt64?) {
        guard let deadline else {
            timer.cancel()
            return
        }
        armedFor = deadline
        armings += 1
        timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .milliseconds(5))
    }

    /// Takes `entry`, which is in the list, out of it (one for both callers); under `lock`.
    @inline(never)
    private func unlink(_ entry: Deadline) {
        guard let first = newest, first !== entry else {
            newest = entry.next
            return
        }
        var previous = first
        while let next = previous.next, next !== entry {
            previous = next
        }
        previous.next = entry.next
    }

    /// Runs what is due, one entry at a time outside the lock, earliest first (of equal
    /// deadlines the first added), then arms the timer for the earliest entry left.
    private func tick() {
        let now = DispatchTime.now().uptimeNanoseconds
        while true {
            lock.lock()
            guard var earliest = newest else {
                armedFor = .max
                lock.unlock()
                return
            }
            // Newest to oldest: of equal deadlines the last one seen was added first.
            var entry = earliest.next
            while let current = entry {
                if current.due <= earliest.due {
                    earliest = current
                }
                entry = current.next
            }
            guard earliest.due <= now else {
                arm(for: earliest.due)
                lock.unlock()
                return
            }
            unlink(earliest)
            lock.unlock()
            earliest.fire()
        }
    }
}
