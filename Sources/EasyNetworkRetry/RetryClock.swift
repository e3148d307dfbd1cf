import Dispatch
import Foundation

/// Time and chance for a host's retry engine, given so tests can drive its rules without
/// waiting and without luck. A class: one reference has no value witnesses of its own.
final class RetryClock: Sendable {
    /// Seconds on a monotonic clock (pauses, cool-downs, the budget's floor).
    let now: @Sendable () -> TimeInterval
    /// The wall clock, to read a `Retry-After` given as a date.
    let date: @Sendable () -> Date
    /// A number in 0...1, for every jitter.
    let random: @Sendable () -> Double

    init(now: @escaping @Sendable () -> TimeInterval, date: @escaping @Sendable () -> Date, random: @escaping @Sendable () -> Double) {
        self.now = now
        self.date = date
        self.random = random
    }

    /// The system's clocks and random numbers.
    static let system = RetryClock(
        now: { TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000 },
        date: { Date() },
        random: { Double.random(in: 0...1) }
    )
}
