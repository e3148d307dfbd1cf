@testable import EasyNetworkRetry
import XCTest

/// A server's pause: never shorter than asked, jittered forward within `spread`, bounded.
final class HostPauseTests: XCTestCase {
    func testThePauseEndsNoEarlierThanAskedAndAtMostSpreadLater() {
        for (random, end) in [(0.0, 130.0), (0.5, 137.5), (1.0, 145.0)] {
            let pause = RetryEngine(clock: TestClock().clock)
            XCTAssertEqual(pause.pause(for: 30, status: 503, rules: .default, now: 100, random: random), end)
            XCTAssertEqual(pause.pauseStatus, 503)
            XCTAssertEqual(pause.pauseLeft(now: 110) ?? 0, end - 110, accuracy: 1e-9)
            XCTAssertNil(pause.pauseLeft(now: end), "over at its end")
        }
    }

    func testJitterSpreadsTheReturnsOfAFleetToldTheSameMoment() {
        // 1,000 devices get `Retry-After: 30` at the same moment (seeded numbers: the same on
        // every run). Without jitter all would come back in the same instant.
        var generator = SeededGenerator(seed: 30)
        var returns: [TimeInterval] = []
        for _ in 0..<1_000 {
            let pause = RetryEngine(clock: TestClock().clock)
            let random = Double(generator.next() >> 11) / Double(1 << 53)
            returns.append(pause.pause(for: 30, status: 503, rules: .default, now: 0, random: random))
        }
        XCTAssertGreaterThanOrEqual(returns.min() ?? 0, 30, "no device comes back before the server asked")
        XCTAssertLessThanOrEqual(returns.max() ?? .infinity, 45)
        var perSecond = [Int](repeating: 0, count: 15)
        for end in returns { perSecond[min(14, Int(end - 30))] += 1 }
        XCTAssertLessThanOrEqual(perSecond.max() ?? 0, 100, "no second gets more than 10 % of the fleet (even: 6.7 %): \(perSecond)")
        XCTAssertGreaterThanOrEqual(perSecond.min() ?? 0, 35, "every second of the window gets some: \(perSecond)")
        XCTAssertEqual(Set(returns).count, 1_000, "no two devices return at the same moment")
    }

    func testALongPauseIsCutToMaxRetryAfterAndNeverShortensOneRunning() {
        let pause = RetryEngine(clock: TestClock().clock)
        let rules = Backpressure(maxRetryAfter: 60, spread: 0)
        XCTAssertEqual(pause.pause(for: 3_600, status: 429, rules: rules, now: 0, random: 1), 60)
        XCTAssertEqual(pause.pause(for: 5, status: 503, rules: rules, now: 10, random: 0), 60, "a shorter one does not shorten it")
        XCTAssertEqual(pause.pauseStatus, 429)
        XCTAssertEqual(pause.pause(for: 60, status: 503, rules: rules, now: 30, random: 0), 90, "a longer one extends it")
        XCTAssertEqual(pause.pauseStatus, 503)
        XCTAssertEqual(Backpressure(spread: 7).spread, 1)
        XCTAssertNil(RetryEngine(clock: TestClock().clock).pauseLeft(now: 0), "a host that never paused")
    }
}
