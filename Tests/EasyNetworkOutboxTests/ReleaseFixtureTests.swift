import EasyNetwork
import EasyNetworkTesting
@testable import EasyNetworkOutbox
import Foundation
import XCTest

/// A plain request with no body, as the fixture's first entry was sent.
private struct DeleteItem: BaseAPIRequest {
    var api: String { "/items/1" }
    var method: NetworkService.Method { .delete }
}

/// An outbox folder written by EasyNetwork 0.3.0 (`Fixtures/outbox-0.3.0`) is read and
/// delivered by this version (issue 31: what users have on disk survives the upgrade).
///
/// The folder was made by ``testWriteTheFixtureFolder()`` on 0.3.0's code, run with
/// `EASYNETWORK_WRITE_FIXTURES=1 swift test --filter OutboxReleaseFixtureTests`: two
/// entries waiting (a `DELETE` without a body; a `POST` with a JSON body and headers of
/// its own) and a dead letter (a `POST` the server answered 422). Entries store their
/// URL, so the server listens on the port they were written with.
final class OutboxReleaseFixtureTests: OutboxTestCase {
    static let port: UInt16 = 47_312
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/outbox-0.3.0")

    override func setUpWithError() throws {
        try super.setUpWithError()
        server.stop()
        do {
            server = try LoopbackServer(port: Self.port)
        } catch {
            XCTFail("the fixture's entries name port \(Self.port), which is taken: \(error)")
            throw error
        }
    }

    /// Options that never age the fixture's entries out (they were written long ago).
    private func fixtureOptions() -> OutboxOptions {
        fastOptions(maxAge: 100 * 365 * 24 * 60 * 60)
    }

    /// Serves the entries' routes, recording each request.
    private func serveFixtureRoutes() -> Collector<RecordedRequest> {
        let seen = Collector<RecordedRequest>()
        server.route("DELETE", "/items/1") { request in
            seen.append(request)
            return .status(204)
        }
        server.route("POST", "/events") { request in
            seen.append(request)
            return .status(200)
        }
        return seen
    }

    func testThe030EntriesAreReadAndDeliveredWithTheirMethodBodyHeadersAndKey() throws {
        try FileManager.default.copyItem(at: Self.fixture, to: folder)
        let seen = serveFixtureRoutes()
        let outbox = makeOutbox(options: fixtureOptions())
        let pending = outbox.pendingEntries()
        XCTAssertEqual(pending.map(\.method), ["DELETE", "POST"], "oldest first")
        XCTAssertEqual(outbox.deadLetters().count, 1)
        let delivered = Collector<OutboxEntry>()
        outbox.onDelivered = { delivered.append($0) }
        outbox.resume()
        waitUntil("the 0.3.0 entries delivered") { delivered.count == 2 }
        XCTAssertEqual(outbox.pendingCount, 0)
        XCTAssertEqual(files("pending"), [])

        let requests = seen.values
        XCTAssertEqual(requests.map(\.method), ["DELETE", "POST"])
        XCTAssertEqual(requests.map { $0.header("Idempotency-Key") }, pending.map(\.idempotencyKey))
        XCTAssertEqual(requests.map(\.path), ["/items/1", "/events"])
        XCTAssertEqual(requests[0].body, Data())
        XCTAssertEqual(try JSONSerialization.jsonObject(with: requests[1].body) as? [String: Int], ["n": 2])
        XCTAssertEqual(requests[1].header("X-Trace"), "t-2")
        XCTAssertEqual(requests[1].header("Content-Type"), "application/json")
        XCTAssertNil(requests[1].header("Authorization"), "0.3.0 stored no credential")
    }

    func testThe030DeadLetterIsReadAndARetryDeliversIt() throws {
        try FileManager.default.copyItem(at: Self.fixture, to: folder)
        let seen = serveFixtureRoutes()
        let outbox = makeOutbox(options: fixtureOptions())
        let letter = try XCTUnwrap(outbox.deadLetters().first)
        XCTAssertEqual(letter.statusCode, 422)
        XCTAssertEqual(String(decoding: letter.responseBody, as: UTF8.self), #"{"error":"rejected"}"#)
        XCTAssertFalse(letter.reason.isEmpty)
        XCTAssertEqual(letter.entry.method, "POST")
        XCTAssertEqual(try JSONSerialization.jsonObject(with: letter.entry.body) as? [String: Int], ["n": 3])
        try outbox.retryDeadLetter(letter)
        XCTAssertEqual(outbox.deadLetters().count, 0)
        let delivered = Collector<OutboxEntry>()
        outbox.onDelivered = { delivered.append($0) }
        outbox.resume()
        waitUntil("every entry delivered") { delivered.count == 3 }
        let posted = seen.values.filter { $0.path == "/events" }
        XCTAssertEqual(posted.count, 2)
        XCTAssertTrue(posted.contains { $0.header("Idempotency-Key") == letter.entry.idempotencyKey && (try? JSONSerialization.jsonObject(with: $0.body) as? [String: Int]) == ["n": 3] })
    }

    /// Writes `Fixtures/outbox-0.3.0` (run on 0.3.0's code; see the type's comment).
    func testWriteTheFixtureFolder() throws {
        guard ProcessInfo.processInfo.environment["EASYNETWORK_WRITE_FIXTURES"] == "1" else {
            throw XCTSkip("writes the fixture only with EASYNETWORK_WRITE_FIXTURES=1")
        }
        server.route("POST", "/events") { _ in .json(#"{"error":"rejected"}"#, status: 422) }
        try? FileManager.default.removeItem(at: Self.fixture)
        let outbox = Outbox(host: makeHost(), queue: queue, folder: Self.fixture, options: fastOptions())
        try outbox.send(EventRequest(n: 3))
        outbox.resume()
        waitUntil("the dead letter") { outbox.deadLetters().count == 1 }
        outbox.pause()
        try outbox.send(DeleteItem())
        try outbox.send(EventRequest(n: 2, extraHeaders: ["X-Trace": "t-2"]))
        XCTAssertEqual(outbox.pendingCount, 2)
    }
}
