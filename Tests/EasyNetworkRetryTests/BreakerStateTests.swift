@testable import EasyNetworkRetry
import XCTest

/// The circuit breaker with a driven clock: opens after a run of failures, refuses, lets
/// one probe through after the cool-down, and the probe's answer closes or reopens it.
final class BreakerStateTests: XCTestCase {
    private let rules = CircuitBreaker(failureThreshold: 3, coolDown: 10, spread: 0.5)
    private let outage: HostFailure = (503, nil)

    func testTheBreakerOpensProbesAndCloses() {
        let breaker = RetryEngine(clock: TestClock().clock)
        for _ in 0..<2 { breaker.recordBreakerFailure(outage, probe: false, rules: rules, now: 0, random: 0.5) }
        XCTAssertEqual(breaker.breakerAdmission(now: 0), .go, "2 failures in a row: still closed")
        breaker.recordBreakerFailure((nil, .timedOut), probe: false, rules: rules, now: 0, random: 0.5)
        XCTAssertEqual(breaker.phase, .open(until: 12.5), "cool-down 10 s + 0.5 × 50 %")
        XCTAssertEqual(breaker.opener.map(TestFailure.init), .transport(.timedOut))
        XCTAssertEqual(breaker.breakerAdmission(now: 12), .refused(retryIn: 0.5))
        XCTAssertEqual(breaker.breakerOpenFor(now: 12) ?? 0, 0.5, accuracy: 1e-9)
        XCTAssertEqual(breaker.breakerAdmission(now: 12.5), .probe, "after the cool-down one request goes")
        XCTAssertEqual(breaker.breakerAdmission(now: 13), .refused(retryIn: nil), "the others wait for its answer")
        breaker.recordBreakerSuccess()
        XCTAssertEqual(breaker.phase, .closed)
        XCTAssertEqual(breaker.breakerAdmission(now: 13), .go)
        XCTAssertEqual(breaker.failuresInARow, 0)
    }

    func testAFailedProbeReopensForAnotherCoolDown() {
        let breaker = RetryEngine(clock: TestClock().clock)
        for _ in 0..<3 { breaker.recordBreakerFailure(outage, probe: false, rules: rules, now: 0, random: 0) }
        XCTAssertEqual(breaker.breakerAdmission(now: 10), .probe)
        breaker.recordBreakerFailure(outage, probe: false, rules: rules, now: 11, random: 0)
        XCTAssertEqual(breaker.phase, .probing, "a late failure of another request is not the probe's answer")
        breaker.recordBreakerFailure(outage, probe: true, rules: rules, now: 11, random: 1)
        XCTAssertEqual(breaker.phase, .open(until: 26), "open again: 10 s + 50 %")
        XCTAssertEqual(breaker.breakerAdmission(now: 25), .refused(retryIn: 1))
    }

    func testAnAbandonedProbeHandsTheProbeOnAndFailuresWhileOpenChangeNothing() {
        let breaker = RetryEngine(clock: TestClock().clock)
        for _ in 0..<3 { breaker.recordBreakerFailure(outage, probe: false, rules: rules, now: 0, random: 0) }
        breaker.recordBreakerFailure(outage, probe: false, rules: rules, now: 5, random: 1)
        XCTAssertEqual(breaker.phase, .open(until: 10), "a failure while open does not extend it")
        XCTAssertEqual(breaker.breakerAdmission(now: 10), .probe)
        breaker.probeAbandoned(now: 11)
        XCTAssertEqual(breaker.breakerAdmission(now: 11), .probe, "the next request probes")
    }

    func testASuccessWhileOpenClosesIt() {
        let breaker = RetryEngine(clock: TestClock().clock)
        for _ in 0..<3 { breaker.recordBreakerFailure(outage, probe: false, rules: rules, now: 0, random: 0) }
        breaker.recordBreakerSuccess()  // a request that was in flight got its answer
        XCTAssertEqual(breaker.breakerAdmission(now: 1), .go)
    }
}
