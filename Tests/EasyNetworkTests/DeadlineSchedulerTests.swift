@testable import EasyNetwork
import Foundation
import XCTest

/// The one timer behind every request deadline: entries fire in deadline order, never
/// before their time, cancelled ones never; the timer is armed again only for an earlier
/// deadline. Each test uses its own scheduler (the shared one serves the other tests).
final class DeadlineSchedulerTests: XCTestCase {
    private struct Fired: Sendable {
        let index: Int
        let deadline: DispatchTime
        let early: Bool
    }

    func testThousandDeadlinesAddedOutOfOrderFireInOrderAndCancelledOnesNever() {
        let scheduler = DeadlineScheduler(queue: DispatchQueue(label: "DeadlineSchedulerTests"))
        let fired = Collector<Fired>()
        // All are added and cancelled well before the first is due (generous for a loaded
        // machine): order is only promised among entries that were waiting.
        let start = DispatchTime.now() + .seconds(2)
        // Pairs of equal deadlines, 0.5 ms apart, spread over 250 ms, added shuffled.
        var generator = SystemRandomNumberGenerator()
        let order = Array(0..<1_000).shuffled(using: &generator)
        let deadlines = (0..<1_000).map { start + .microseconds($0 / 2 * 500) }
        var keys = [Int](repeating: 0, count: 1_000)
        for index in order {
            let deadline = deadlines[index]
            keys[index] = scheduler.schedule(at: deadline) {
                fired.append(Fired(index: index, deadline: deadline, early: DispatchTime.now() < deadline))
            }
        }
        let cancelled = Set(order.prefix(300))
        for index in cancelled {
            scheduler.cancel(keys[index])
        }
        XCTAssertLessThan(DispatchTime.now(), start, "the machine was too slow to set up the test")
        let deadline = Date().addingTimeInterval(30)
        while fired.count < 700, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        Thread.sleep(forTimeInterval: 0.3)
        let values = fired.values
        XCTAssertEqual(values.count, 700)
        XCTAssertEqual(Set(values.map(\.index)), Set(0..<1_000).subtracting(cancelled))
        XCTAssertFalse(values.contains { $0.early })
        for (previous, next) in zip(values, values.dropFirst()) {
            XCTAssertLessThanOrEqual(previous.deadline, next.deadline)
            if previous.deadline == next.deadline {
                // Equal deadlines fire in the order they were scheduled.
                XCTAssertLessThan(keys[previous.index], keys[next.index])
            }
        }
    }

    func testADeadlineEarlierThanTheArmedOneFiresOnTime() {
        let scheduler = DeadlineScheduler(queue: DispatchQueue(label: "DeadlineSchedulerTests"))
        let late = expectation(description: "late")
        late.isInverted = true
        let early = expectation(description: "early")
        let lateKey = scheduler.schedule(at: .now() + 60) { late.fulfill() }
        _ = scheduler.schedule(at: .now() + .milliseconds(100)) { early.fulfill() }
        // Generous for a loaded machine; without re-arming it would fire after 60 s.
        wait(for: [early], timeout: 10)
        wait(for: [late], timeout: 0.2)
        scheduler.cancel(lateKey)
        XCTAssertEqual(scheduler.timesArmed, 3)  // late, early, then late again after the tick
    }

    func testEqualTimeoutsDoNotReArmTheTimerPerRequest() {
        let scheduler = DeadlineScheduler(queue: DispatchQueue(label: "DeadlineSchedulerTests"))
        let first = scheduler.schedule(at: .now() + 60) {}
        XCTAssertEqual(scheduler.timesArmed, 1)
        // Requests with the same timeout, one after another, each completing: the timer
        // stays armed for the first deadline (or an earlier one) and is not set again.
        for _ in 0..<1_000 {
            let key = scheduler.schedule(at: .now() + 60) {}
            scheduler.cancel(key)
        }
        scheduler.cancel(first)
        for _ in 0..<100 {
            let key = scheduler.schedule(at: .now() + 60) {}
            scheduler.cancel(key)
        }
        XCTAssertEqual(scheduler.timesArmed, 1)
    }

    func testAFiringEntryCanScheduleTheNextOne() {
        let scheduler = DeadlineScheduler(queue: DispatchQueue(label: "DeadlineSchedulerTests"))
        let done = expectation(description: "second")
        _ = scheduler.schedule(at: .now() + .milliseconds(20)) {
            _ = scheduler.schedule(at: .now() + .milliseconds(20)) { done.fulfill() }
        }
        wait(for: [done], timeout: 10)
    }
}

/// The shared scheduler on the request path: requests one after another, with the same
/// timeout, leave the armed timer alone (no timer set per request).
final class DeadlineSchedulerRequestTests: ServerTestCase {
    func testSequentialRequestsDoNotReArmTheSharedTimer() {
        server.route("GET", "/ok") { _ in .json(#"{"ok": true}"#) }
        let host = makeHost()
        XCTAssertNotNil(value(of: send(TestRequest("/ok"), host: host)))
        let armed = DeadlineScheduler.shared.timesArmed
        for _ in 0..<30 {
            XCTAssertNotNil(value(of: send(TestRequest("/ok"), host: host)))
        }
        // A deadline left by an earlier test may come due meanwhile: a few, never 30.
        XCTAssertLessThanOrEqual(DeadlineScheduler.shared.timesArmed - armed, 3)
    }
}
