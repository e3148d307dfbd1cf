@testable import EasyNetwork
@testable import EasyNetworkOutbox
import EasyNetworkRetry
import EasyNetworkTesting
import Foundation
import XCTest

/// The outbox and its host's retry engine (EasyNetworkRetry): a host the server paused, or
/// whose circuit breaker is open, gets no delivery until it may be sent to again, and the
/// wait is no attempt.
final class OutboxPauseTests: OutboxTestCase {
    func testAPausedHostHoldsDeliveriesWithoutCountingAnAttempt() throws {
        serveEvents()
        server.route("GET", "/limited") { _ in .status(503, headers: ["Retry-After": "30"]) }
        let host = makeHost()
        host.retryPolicy = .none
        XCTAssertEqual(failure(of: send(TestRequest("/limited"), host: host))?.statusCode, 503, "the server pauses the host for 30 s")
        let outbox = makeOutbox(host: host)
        let delivered = Collector<OutboxEntry>()
        outbox.onDelivered = { delivered.append($0) }
        try outbox.send(EventRequest(n: 1))
        outbox.resume()
        // The outbox looks again every 0.2 s (its maxRetryDelay here): a second is five looks.
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(log.events.count, 0, "nothing delivered to a paused host")
        XCTAssertEqual(outbox.pendingEntries().map(\.attempts), [0], "waiting is no attempt")

        host.backpressure = nil  // the pause is forgotten: deliveries go on
        waitUntil("delivered") { delivered.count == 1 }
        XCTAssertEqual(log.events.count, 1)
        XCTAssertEqual(delivered.values.first?.attempts, 0, "delivered at its first attempt")
    }

    func testPausingTheOutboxDuringTheWaitHoldsItsEntryAfterTheHostReopens() throws {
        serveEvents()
        server.route("GET", "/limited") { _ in .status(429, headers: ["Retry-After": "30"]) }
        let host = makeHost()
        host.retryPolicy = .none
        _ = send(TestRequest("/limited"), host: host)
        let outbox = makeOutbox(host: host)
        try outbox.send(EventRequest(n: 1))
        outbox.resume()
        Thread.sleep(forTimeInterval: 0.5)
        outbox.pause()  // while it waits for the host
        host.backpressure = nil
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(log.events.count, 0, "a paused outbox sends nothing, the host open or not")
        XCTAssertEqual(outbox.pendingEntries().map(\.attempts), [0])
        outbox.resume()
        waitUntil("delivered") { outbox.pendingCount == 0 }
        XCTAssertEqual(log.events.count, 1)
    }

    func testAnOpenBreakerHoldsDeliveriesToo() throws {
        serveEvents()
        server.route("GET", "/down") { _ in .status(500) }
        let host = makeHost()
        host.circuitBreaker = CircuitBreaker(failureThreshold: 1, coolDown: 30)
        _ = send(TestRequest("/down"), host: host)
        let outbox = makeOutbox(host: host)
        try outbox.send(EventRequest(n: 1))
        outbox.resume()
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(log.events.count, 0, "nothing delivered while the breaker is open")
        XCTAssertEqual(outbox.pendingEntries().map(\.attempts), [0])
        host.circuitBreaker = nil
        waitUntil("delivered") { outbox.pendingCount == 0 }
        XCTAssertEqual(log.events.count, 1)
    }

    /// How many times `outbox` took an entry to send it.
    private func taken(by outbox: Outbox) -> Int {
        outbox.lock.lock()
        defer { outbox.lock.unlock() }
        return outbox.counts.taken
    }

    /// With `maxRetryDelay` 0 (allowed) a paused host is asked again after a short wait,
    /// not in a tight loop for the whole pause.
    func testAPausedHostWithNoMaxRetryDelayIsNotAskedInALoop() throws {
        serveEvents()
        server.route("GET", "/limited") { _ in .status(503, headers: ["Retry-After": "30"]) }
        let host = makeHost()
        host.retryPolicy = .none
        _ = send(TestRequest("/limited"), host: host)
        let outbox = makeOutbox(host: host, options: OutboxOptions(retryDelay: 0, maxRetryDelay: 0, lockRetryInterval: 0.02))
        try outbox.send(EventRequest(n: 1))
        outbox.resume()
        Thread.sleep(forTimeInterval: 1)
        let looks = taken(by: outbox)
        XCTAssertLessThanOrEqual(looks, 40, "looks at a paused host in a second")
        XCTAssertEqual(log.events.count, 0, "nothing delivered to a paused host")
        XCTAssertEqual(outbox.pendingEntries().map(\.attempts), [0], "waiting is no attempt")
        host.backpressure = nil
        waitUntil("delivered") { outbox.pendingCount == 0 }
        XCTAssertEqual(log.events.count, 1)
    }

    /// With `retryDelay` 0, a delivery refused unsent while the breaker's probe is out
    /// (the host is not paused then) waits a moment before it goes again.
    func testADeliveryRefusedWhileTheProbeIsOutIsNotResentInALoop() throws {
        serveEvents()
        server.route("GET", "/down") { _ in .status(500) }
        server.route("GET", "/probe") { _ in .delayed(1.5, .status(200)) }
        let host = makeHost()
        host.retryPolicy = .none
        host.circuitBreaker = CircuitBreaker(failureThreshold: 1, coolDown: 0.1, spread: 0)
        _ = send(TestRequest("/down"), host: host)
        Thread.sleep(forTimeInterval: 0.3)  // the cool-down: the next request is the probe
        let probed = expectation(description: "probe")
        EasyNetworkService(host).request(TestRequest("/probe"), success: { _ in probed.fulfill() }, failure: { _ in probed.fulfill() })
        waitUntil("the probe arrived") { server.requests(path: "/probe").count == 1 }
        let outbox = makeOutbox(host: host, options: OutboxOptions(retryDelay: 0, maxRetryDelay: 0.2, lockRetryInterval: 0.02))
        try outbox.send(EventRequest(n: 1))
        outbox.resume()
        Thread.sleep(forTimeInterval: 0.8)
        let looks = taken(by: outbox)
        XCTAssertLessThanOrEqual(looks, 40, "deliveries refused while the probe is out")
        XCTAssertGreaterThanOrEqual(looks, 1)
        XCTAssertEqual(log.events.count, 0, "nothing sent while the probe is out")
        wait(for: [probed], timeout: 10)
        waitUntil("delivered") { outbox.pendingCount == 0 }
        XCTAssertEqual(log.events.count, 1)
        XCTAssertEqual(outbox.pendingEntries().count, 0)
    }

    func testADeliveryTheHostRefusedBeforeSendingIsNoAttempt() {
        var refused = NetworkError(kind: .unacceptableStatus, message: "not sent", statusCode: 503)
        refused = refused.ending(attempts: 0, quoting: false)
        XCTAssertEqual(DeliveryVerdict.judge(refused), .notSent)
        refused = refused.ending(attempts: 1, quoting: false)
        XCTAssertEqual(DeliveryVerdict.judge(refused), .retry(counted: true))
    }
}
