// MetricsRendezvous exists on Apple platforms and in debug builds (see its file).
#if !canImport(FoundationNetworking) || DEBUG
@testable import EasyNetwork
import Foundation
import XCTest

/// A task's end and Apple's task metrics, in either order (driven here, since Linux
/// never reports task metrics).
final class MetricsRendezvousTests: XCTestCase {
    private let queue = OperationQueue()
    private let measured = Date(timeIntervalSince1970: 1_000)

    /// Runs `rendezvous.taskEnded`, collecting every call of its ending.
    private func end(_ rendezvous: MetricsRendezvous, into endings: Collector<Date?>, done: XCTestExpectation? = nil) {
        rendezvous.taskEnded(on: queue) { firstByteAt in
            endings.append(firstByteAt)
            done?.fulfill()
        }
    }

    func testMetricsThatArriveAfterTheTaskEndedAreStillCarried() {
        let rendezvous = MetricsRendezvous(expectsMetrics: true, patience: 30)
        let endings = Collector<Date?>()
        end(rendezvous, into: endings)
        XCTAssertEqual(endings.values.count, 0, "the ending waits for the metrics")
        rendezvous.metricsArrived(firstByteAt: measured)
        XCTAssertEqual(endings.values, [measured])
        rendezvous.metricsArrived(firstByteAt: Date())
        XCTAssertEqual(endings.values, [measured], "exactly once")
    }

    func testMetricsThatArriveFirstAreCarriedAtOnce() {
        let rendezvous = MetricsRendezvous(expectsMetrics: true, patience: 30)
        let endings = Collector<Date?>()
        rendezvous.metricsArrived(firstByteAt: measured)
        end(rendezvous, into: endings)
        XCTAssertEqual(endings.values, [measured])
    }

    func testAnEndingWaitsNoLongerThanItsPatience() {
        let rendezvous = MetricsRendezvous(expectsMetrics: true, patience: 0.05)
        let endings = Collector<Date?>()
        let done = expectation(description: "ended without metrics")
        end(rendezvous, into: endings, done: done)
        wait(for: [done], timeout: 10)
        XCTAssertEqual(endings.values, [nil])
        rendezvous.metricsArrived(firstByteAt: measured)  // too late
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(endings.values, [nil], "exactly once")
    }

    func testNothingWaitsWhereThePlatformReportsNoMetrics() {
        let endings = Collector<Date?>()
        end(MetricsRendezvous(expectsMetrics: false, patience: 30), into: endings)
        XCTAssertEqual(endings.values, [nil])
        #if canImport(FoundationNetworking)
        XCTAssertFalse(MetricsRendezvous.platformReportsMetrics)
        #else
        XCTAssertTrue(MetricsRendezvous.platformReportsMetrics)
        #endif
    }

    func testEitherOrderFromManyThreadsEndsExactlyOnce() {
        let rounds = 500
        let endings = (0..<rounds).map { _ in Collector<Date?>() }
        let rendezvous = (0..<rounds).map { _ in MetricsRendezvous(expectsMetrics: true, patience: 30) }
        let (queue, measured) = (queue, measured)
        DispatchQueue.concurrentPerform(iterations: rounds * 2) { index in
            let round = index / 2
            if index % 2 == 0 {
                rendezvous[round].taskEnded(on: queue) { endings[round].append($0) }
            } else {
                rendezvous[round].metricsArrived(firstByteAt: measured)
            }
        }
        XCTAssertEqual(endings.map(\.values), Array(repeating: [measured], count: rounds))
    }
}
#endif
