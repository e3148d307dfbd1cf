@testable import EasyNetworkRetry
import XCTest

/// The circuit breaker with a driven clock: opens after a run of failures, refuses, lets
/// one probe through after the cool-down, and the probe's answer closes or reopens it.
final class BreakerStateTests: XCTestCase {
    private let rules = CircuitBreaker(failureThreshold: 3, coolDown: 10, spread: 0.5)
    private let outage = HostSignal.Failure.status(503)

    func testTheBreakerOpensProbesAndCloses() {
        var breaker = BreakerState()
        for _ in 0..<2 { breaker.recordFailure(outage, probe: false, rules: rules, now: 0, random: 0.5) }
        XCTAssertEqual(breaker.admit(now: 0), .go, "2 failures in a row: still closed")
        breaker.recordFailure(.transport(.timedOut), probe: false, rules: rules, now: 0, random: 0.5)
        XCTAssertEqual(breaker.phase, .open(until: 12.5), "cool-down 10 s + 0.5 × 50 %")
        XCTAssertEqual(breaker.opener, .transport(.timedOut))
        XCTAssertEqual(breaker.admit(now: 12), .refused(retryIn: 0.5))
        XCTAssertEqual(breaker.openFor(now: 12) ?? 0, 0.5, accuracy: 1e-9)
        XCTAssertEqual(breaker.admit(now: 12.5), .probe, "after the cool-down one request goes")
        XCTAssertEqual(breaker.admit(now: 13), .refused(retryIn: nil), "the others wait for its answer")
        breaker.recordSuccess()
        XCTAssertEqual(breaker.phase, .closed)
        XCTAssertEqual(breaker.admit(now: 13), .go)
        XCTAssertEqual(breaker.failuresInARow, 0)
    }

    func testAFailedProbeReopensForAnotherCoolDown() {
        var breaker = BreakerState()
        for _ in 0..<3 { breaker.recordFailure(outage, probe: false, rules: rules, now: 0, random: 0) }
        XCTAssertEqual(breaker.admit(now: 10), .probe)
        breaker.recordFailure(outage, probe: false, rules: rules, now: 11, random: 0)
        XCTAssertEqual(breaker.phase, .probing, "a late failure of another request is not the probe's answer")
        breaker.recordFailure(outage, probe: true, rules: rules, now: 11, random: 1)
        XCTAssertEqual(breaker.phase, .open(until: 26), "open again: 10 s + 50 %")
        XCTAssertEqual(breaker.admit(now: 25), .refused(retryIn: 1))
    }

    func testAnAbandonedProbeHandsTheProbeOnAndFailuresWhileOpenChangeNothing() {
        var breaker = BreakerState()
        for _ in 0..<3 { breaker.recordFailure(outage, probe: false, rules: rules, now: 0, random: 0) }
        breaker.recordFailure(outage, probe: false, rules: rules, now: 5, random: 1)
        XCTAssertEqual(breaker.phase, .open(until: 10), "a failure while open does not extend it")
        XCTAssertEqual(breaker.admit(now: 10), .probe)
        breaker.probeAbandoned(now: 11)
        XCTAssertEqual(breaker.admit(now: 11), .probe, "the next request probes")
    }

    func testASuccessWhileOpenClosesIt() {
        var breaker = BreakerState()
        for _ in 0..<3 { breaker.recordFailure(outage, probe: false, rules: rules, now: 0, random: 0) }
        breaker.recordSuccess()  // a request that was in flight got its answer
        XCTAssertEqual(breaker.admit(now: 1), .go)
    }
}
