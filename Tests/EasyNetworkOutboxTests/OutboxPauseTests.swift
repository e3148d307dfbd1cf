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

    func testADeliveryTheHostRefusedBeforeSendingIsNoAttempt() {
        var refused = NetworkError(kind: .unacceptableStatus, message: "not sent", statusCode: 503)
        refused.attempts = 0
        XCTAssertEqual(DeliveryVerdict.judge(refused), .notSent)
        refused.attempts = 1
        XCTAssertEqual(DeliveryVerdict.judge(refused), .retry(counted: true))
    }
}
