@testable import EasyNetworkRetry
import XCTest

/// The retry budget's bucket with a driven clock: failures drain it, retries stop at half,
/// successes and the floor in time refill it.
final class TokenBucketTests: XCTestCase {
    /// An engine whose bucket is full of `budget`'s tokens at `now` (the bucket is the engine's).
    private func bucket(_ budget: RetryBudget, now: TimeInterval) -> RetryEngine {
        let engine = RetryEngine(clock: TestClock().clock)
        engine.changeBudget(to: nil, now: now)
        engine.changeBudget(to: budget, now: now)
        return engine
    }

    func testTheBudgetRunsOutAfterThreeFailuresInARowAndSuccessesRefillIt() {
        let bucket = self.bucket(.default, now: 0)
        XCTAssertTrue(bucket.allowsRetry(now: 0), "a host starts with retries")
        for failure in 1...3 {
            bucket.spendToken(now: TimeInterval(failure))
            XCTAssertEqual(bucket.allowsRetry(now: TimeInterval(failure)), failure < 3, "after \(failure) failure(s)")
        }
        for _ in 0..<20 { bucket.spendToken(now: 3) }
        XCTAssertEqual(bucket.tokens, 0, "never below empty")
        for _ in 0..<30 { bucket.returnToken(now: 3) }
        XCTAssertFalse(bucket.allowsRetry(now: 3), "30 successes give back 3 tokens: exactly half, not more")
        bucket.returnToken(now: 3)
        XCTAssertTrue(bucket.allowsRetry(now: 3), "the 31st success brings retries back")
        for _ in 0..<100 { bucket.returnToken(now: 3) }
        XCTAssertEqual(bucket.tokens, 6, accuracy: 1e-9, "never above maxTokens")
    }

    func testTheFloorGivesAWholeTokenBackEveryRefillIntervalWithoutAnySuccess() {
        let bucket = self.bucket(RetryBudget(maxTokens: 6, tokenRatio: 0.1, refillInterval: 30), now: 0)
        for _ in 0..<6 { bucket.spendToken(now: 0) }
        XCTAssertFalse(bucket.allowsRetry(now: 89.9))
        XCTAssertEqual(bucket.tokens, 2, "a whole token for each 30 s passed, none for a part of one")
        XCTAssertFalse(bucket.allowsRetry(now: 90), "3 after 90 s: half, not more")
        bucket.returnToken(now: 90)
        XCTAssertTrue(bucket.allowsRetry(now: 90))
        let tokens = bucket.tokens
        XCTAssertTrue(bucket.allowsRetry(now: 10))
        XCTAssertEqual(bucket.tokens, tokens, "a clock that goes back refills nothing and takes nothing")
        XCTAssertTrue(bucket.allowsRetry(now: 10_000))
        XCTAssertEqual(bucket.tokens, 6, "the floor stops at maxTokens")
    }

    func testADeviceSendingEverySecondThroughAnOutageStaysWithoutRetries() {
        // The floor (1 token / 30 s) is slower than one failure a second: a busy device keeps
        // its budget empty for as long as the outage lasts.
        let bucket = self.bucket(.default, now: 0)
        var retries = 0
        for second in 0..<600 {
            bucket.spendToken(now: TimeInterval(second))
            if bucket.allowsRetry(now: TimeInterval(second)) { retries += 1 }
        }
        XCTAssertEqual(retries, 2, "the first two failures are retried, then none for ten minutes")
    }

    func testChangingTheBudgetKeepsTheTokensUpToTheNewMaximum() {
        let bucket = self.bucket(.default, now: 0)
        bucket.spendToken(now: 0)
        bucket.changeBudget(to: RetryBudget(maxTokens: 100), now: 0)
        XCTAssertEqual(bucket.tokens, 5)
        XCTAssertFalse(bucket.allowsRetry(now: 0), "5 of 100 is below half")
        bucket.changeBudget(to: RetryBudget(maxTokens: 2), now: 0)
        XCTAssertEqual(bucket.tokens, 2)
        XCTAssertTrue(RetryBudget(maxTokens: .nan, tokenRatio: -1, refillInterval: 0).refillInterval > 0, "no division by zero")
        let endless = self.bucket(RetryBudget(refillInterval: .infinity), now: 0)
        endless.spendToken(now: 0)
        XCTAssertTrue(endless.allowsRetry(now: 1e12))
        XCTAssertEqual(endless.tokens, 5, "no floor at all")
    }
}
