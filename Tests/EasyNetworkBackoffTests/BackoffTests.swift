import EasyNetworkBackoff
import XCTest

/// The backoff formula: exponential, capped, jittered around the delay, never above the cap.
final class BackoffTests: XCTestCase {
    func testTheDelayGrowsIsCappedAndJitteredAroundIt() {
        func delay(_ attempt: Int, random: Double, jitter: Double = 0.25) -> TimeInterval {
            Backoff.delay(after: attempt, base: 0.5, multiplier: 2, maximum: 3, jitter: jitter, random: random)
        }
        XCTAssertEqual(delay(1, random: 0.5), 0.5)
        XCTAssertEqual(delay(2, random: 0.5), 1)
        XCTAssertEqual(delay(3, random: 0.5), 2)
        XCTAssertEqual(delay(4, random: 0.5), 3, "capped")
        XCTAssertEqual(delay(1, random: 0), 0.375, "-25 %")
        XCTAssertEqual(delay(1, random: 1), 0.625, "+25 %")
        XCTAssertEqual(delay(9, random: 1), 3, "never above the cap, jitter or not")
        XCTAssertEqual(delay(1_000_000, random: 0, jitter: 0), 3, "a huge attempt count does not overflow")
        XCTAssertEqual(delay(0, random: 0.5, jitter: 0), 0.5, "attempt 0 reads as 1")
    }
}
