import EasyNetwork
import EasyNetworkTesting
@testable import EasyNetworkOutbox
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The host's headers at delivery (issue 29): what is never stored (`X-API-Key`,
/// `Authorization`, `Cookie`, …) comes from the host at each attempt, with its value of
/// that moment, as the token does, and is still never written to disk.
final class DeliveryHeadersTests: OutboxTestCase {
    /// Answers 200 to an event that carries `X-API-Key: <key()>`, 401 to any other.
    private func serveEvents(requiringKey key: @escaping @Sendable () -> String) {
        let log = self.log
        server.route("POST", "/events") { request in
            log.record(request)
            return request.header("X-API-Key") == key() ? .status(200) : .status(401)
        }
    }

    /// Waits until the outbox delivered or buried `count` entries; returns how many were delivered.
    private func waitForOutcomes(of outbox: Outbox, count: Int) -> (delivered: Int, dead: [OutboxDeadLetter]) {
        let delivered = Collector<OutboxEntry>(), dead = Collector<OutboxDeadLetter>()
        outbox.onDelivered = { delivered.append($0) }
        outbox.onDeadLetter = { dead.append($0) }
        outbox.resume()
        waitUntil("every entry delivered or a dead letter") { delivered.count + dead.count >= count }
        return (delivered.count, dead.values)
    }

    func testADeliveryCarriesTheHostsDefaultHeaderAsAnOrdinaryRequestDoes() throws {
        serveEvents(requiringKey: { "key-1" })
        let host = makeHost()
        host.defaultHeaders = ["X-API-Key": "key-1", "X-SDK-Version": "1.2"]
        // An ordinary request of the host carries the key.
        let ordinary = send(EventRequest(n: 0), host: host)
        guard case .success = ordinary else { return XCTFail("the ordinary request failed: \(ordinary)") }
        let outbox = makeOutbox(host: host)
        let entries = try (1...3).map { try outbox.send(EventRequest(n: $0)) }
        let outcome = waitForOutcomes(of: outbox, count: 3)
        XCTAssertEqual(outcome.delivered, 3, "dead letters: \(outcome.dead.map(\.reason))")
        let deliveries = log.events.filter { $0.n > 0 }
        XCTAssertEqual(deliveries.map { $0.request.header("X-API-Key") }, ["key-1", "key-1", "key-1"])
        XCTAssertEqual(deliveries.map(\.key), entries.map(\.idempotencyKey))
        XCTAssertEqual(deliveries.map { $0.request.header("X-SDK-Version") }, ["1.2", "1.2", "1.2"])
    }

    func testEachAttemptCarriesTheValueTheHostHasThen() throws {
        // The key changes after the entry was stored, and again after the first attempt.
        let current = Protected("key-2")
        let host = makeHost()
        host.defaultHeaders = ["X-API-Key": "key-1"]
        let log = self.log
        // The first attempt is answered 503 (tried again), the key changed meanwhile.
        server.route("POST", "/events") { request in
            log.record(request)
            guard log.events.count > 1 else {
                current.write { $0 = "key-3" }
                host.defaultHeaders = ["X-API-Key": "key-3"]
                return .status(503)
            }
            return request.header("X-API-Key") == current.read({ $0 }) ? .status(200) : .status(401)
        }
        let outbox = makeOutbox(host: host)
        try outbox.send(EventRequest(n: 1))
        host.defaultHeaders = ["X-API-Key": "key-2"]
        let outcome = waitForOutcomes(of: outbox, count: 1)
        XCTAssertEqual(outcome.delivered, 1, "dead letters: \(outcome.dead.map(\.reason))")
        XCTAssertEqual(log.events.map { $0.request.header("X-API-Key") }, ["key-2", "key-3"])
    }

    func testTheHostsHeadersAreNeverStoredAlsoWhenAnAttemptIsRecorded() throws {
        let host = makeHost()
        host.defaultHeaders = ["X-API-Key": "key-7d1c", "Authorization": "Bearer host-9e2f", "Cookie": "sid=host-4a5b"]
        let log = self.log
        server.route("POST", "/events") { request in
            log.record(request)
            return log.events.count == 1 ? .status(503) : .status(200)
        }
        let outbox = makeOutbox(host: host)
        let entry = try outbox.send(EventRequest(n: 1))
        let file = folder.appendingPathComponent("pending/" + entry.id + ".entry")
        func assertNothingStored(_ when: String) throws {
            let bytes = try Data(contentsOf: file)
            for secret in ["key-7d1c", "host-9e2f", "sid=host-4a5b"] {
                XCTAssertNil(bytes.range(of: Data(secret.utf8)), secret + " is on disk " + when)
            }
        }
        try assertNothingStored("once sent")
        outbox.resume()
        // The failed first attempt is written to the entry (its count and the next attempt's time).
        waitUntil("the failed attempt recorded") { outbox.pendingEntries().first?.attempts == 1 || log.events.count > 1 }
        if FileManager.default.fileExists(atPath: file.path) {
            try assertNothingStored("after a failed attempt")
        }
        waitUntil("delivered") { outbox.pendingCount == 0 }
        let requests = log.events.map(\.request)
        XCTAssertEqual(requests.count, 2)
        for request in requests {
            XCTAssertEqual(request.header("X-API-Key"), "key-7d1c")
            // The host's own Authorization and Cookie go, as with an ordinary request: the
            // request's own (EventRequest's "Bearer secret", "session=1") were never stored.
            XCTAssertEqual(request.header("Authorization"), "Bearer host-9e2f")
            XCTAssertEqual(request.header("Cookie"), "sid=host-4a5b")
        }
    }

    func testAStoredHeaderOfTheRequestWinsOverTheHostsDefault() throws {
        serveEvents()
        let host = makeHost()
        let outbox = makeOutbox(host: host)
        try outbox.send(EventRequest(n: 1, extraHeaders: ["X-Trace": "from-the-request"]))
        host.defaultHeaders = ["X-Trace": "from-the-host", "X-Later": "added"]
        let outcome = waitForOutcomes(of: outbox, count: 1)
        XCTAssertEqual(outcome.delivered, 1)
        let request = try XCTUnwrap(log.events.first?.request)
        XCTAssertEqual(request.header("X-Trace"), "from-the-request")
        XCTAssertEqual(request.header("X-Later"), "added")
    }

    func testADefaultHeaderTheHostCannotSendMakesADeadLetterThatSaysWhy() throws {
        serveEvents()
        let host = makeHost()
        let outbox = makeOutbox(host: host)
        try outbox.send(EventRequest(n: 1))
        // A key read from a file with its newline: an ordinary request fails, so does the delivery,
        // instead of going out without the key.
        host.defaultHeaders = ["X-API-Key": "key-1\n"]
        let outcome = waitForOutcomes(of: outbox, count: 1)
        XCTAssertEqual(outcome.delivered, 0)
        XCTAssertEqual(log.events.count, 0, "nothing was sent")
        let reason = try XCTUnwrap(outcome.dead.first?.reason)
        XCTAssertTrue(reason.contains("X-API-Key") && reason.contains("line feed"), reason)
        XCTAssertFalse(reason.contains("key-1"), reason)
    }

    func testADeliveryCarriesTheCookiesOfTheHostsSessionAsAnOrdinaryRequestDoes() throws {
        serveEvents()
        let configuration = URLSessionConfiguration.ephemeral
        let jar = try XCTUnwrap(configuration.httpCookieStorage)
        let cookie = try XCTUnwrap(HTTPCookie(properties: [
            .name: "sid", .value: "jar-6c8d", .domain: server.baseURL.host ?? "127.0.0.1", .path: "/",
        ]))
        jar.setCookie(cookie)
        let host = HostConfiguration(baseURL: server.baseURL, sessionConfiguration: configuration)
        host.callbackQueue = callbackQueue
        let ordinary = send(TestRequest("/events", method: .post, query: .json, params: ["n": 0]), host: host)
        guard case .success = ordinary else { return XCTFail("the ordinary request failed: \(ordinary)") }
        let sentCookie = log.events.first?.request.header("Cookie")
        XCTAssertEqual(sentCookie, "sid=jar-6c8d", "an ordinary request carries the jar's cookie")
        let outbox = makeOutbox(host: host)
        let entry = try outbox.send(EventRequest(n: 1))
        let bytes = try Data(contentsOf: folder.appendingPathComponent("pending/" + entry.id + ".entry"))
        XCTAssertNil(bytes.range(of: Data("jar-6c8d".utf8)))
        let outcome = waitForOutcomes(of: outbox, count: 1)
        XCTAssertEqual(outcome.delivered, 1)
        XCTAssertEqual(log.events.last?.request.header("Cookie"), sentCookie)
    }
}
