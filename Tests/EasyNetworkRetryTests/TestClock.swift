@testable import EasyNetworkRetry
import Foundation

/// Time and chance a test drives: seconds move only when it says, and the random numbers
/// are fixed ones or a seeded sequence, so a rule is checked without waiting and without luck.
final class TestClock: @unchecked Sendable {  // unchecked: `seconds` and `generator` guarded by `lock`
    private let lock = NSLock()
    private var seconds: TimeInterval = 1_000
    private let fixed: Double?
    private var generator: SeededGenerator

    /// A clock whose every random number is `random`, or, without one, a seeded sequence.
    init(random: Double? = nil, seed: UInt64 = 1) {
        fixed = random
        generator = SeededGenerator(seed: seed)
    }

    /// Seconds on the monotonic clock.
    var now: TimeInterval {
        lock.lock(); defer { lock.unlock() }
        return seconds
    }

    /// The wall clock: a fixed date plus the seconds the test moved.
    var date: Date { Date(timeIntervalSince1970: 1_800_000_000 + now) }

    func advance(_ by: TimeInterval) {
        lock.lock(); defer { lock.unlock() }
        seconds += by
    }

    func random() -> Double {
        lock.lock(); defer { lock.unlock() }
        return fixed ?? Double(generator.next() >> 11) / Double(1 << 53)
    }

    var clock: RetryClock {
        (now: { self.now }, date: { self.date }, random: { self.random() })
    }
}
