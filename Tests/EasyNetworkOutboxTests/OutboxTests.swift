import EasyNetwork
import EasyNetworkUploads
import EasyNetworkPlugins
import EasyNetworkTesting
@testable import EasyNetworkOutbox
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Adds a token at delivery time, as a host's authenticator or interceptor would.
private struct BearerInterceptor: RequestInterceptor {
    let token: String
    func adapt(_ urlRequest: URLRequest, context: RequestContext, completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void) {
        var adapted = urlRequest
        adapted.setValue("Bearer " + token, forHTTPHeaderField: "Authorization")
        completion(.success(adapted))
    }
}

final class OutboxTests: OutboxTestCase {
    func testSendReturnsOnceTheEntryIsOnDiskAndAPausedOutboxSendsNothing() throws {
        serveEvents()
        let outbox = makeOutbox()
        XCTAssertTrue(outbox.isPaused)
        let entry = try outbox.send(EventRequest(n: 1))
        XCTAssertEqual(files("pending"), [entry.id + ".entry"])
        XCTAssertEqual(files("tmp"), [])
        XCTAssertEqual(outbox.pendingCount, 1)
        usleep(100_000)
        XCTAssertEqual(log.events.count, 0, "a paused outbox sends nothing")
    }

    func testTheHostsEnvelopeDecidesWhetherAnAcceptedAnswerDeliveredTheEntry() throws {
        // A body {"ok": false} is the server saying no (a business failure): a dead letter.
        // {"ok": true}, an empty body and a body that is not JSON are accepted answers.
        serveEvents { n in
            switch n {
            case 1: return .json(#"{"ok": true}"#)
            case 2: return .json(#"{"ok": false}"#)
            case 3: return .status(200)
            default: return .text("not the envelope's JSON")
            }
        }
        let host = makeHost()
        host.setPayloadReader(OkFlagEnvelope())
        let outbox = makeOutbox(host: host)
        let ids = try (1...4).map { try outbox.send(EventRequest(n: $0)).id }
        let delivered = Collector<String>(), dead = Collector<OutboxDeadLetter>()
        outbox.onDelivered = { delivered.append($0.id) }
        outbox.onDeadLetter = { dead.append($0) }
        outbox.resume()
        waitUntil("every entry delivered or a dead letter") { delivered.count + dead.count == 4 }
        XCTAssertEqual(delivered.values, [ids[0], ids[2], ids[3]])
        XCTAssertEqual(dead.values.map(\.id), [ids[1]])
        XCTAssertEqual(dead.values.first?.statusCode, 200)
        XCTAssertEqual(log.numbers, [1, 2, 3, 4], "a business failure is final: no retry")
    }

    func testUnstoredHeadersStayOffTheDiskWhateverTheirCase() throws {
        let outbox = makeOutbox()
        // Names in lower case (EventRequest adds "Authorization" and "Cookie" too); the
        // request's own idempotency key, also in lower case, is the entry's.
        let entry = try outbox.send(EventRequest(n: 1, extraHeaders: [
            "x-api-key": "k-5e1a", "proxy-authorization": "p-7c2b", "cookie": "c-3a9e", "idempotency-key": "key-9d3f", "X-Trace": "t",
        ]))
        XCTAssertEqual(entry.idempotencyKey, "key-9d3f")
        let names = entry.headers.keys.map { $0.lowercased() }
        XCTAssertEqual(names.filter { $0 == "idempotency-key" }.count, 1, "\(names)")
        XCTAssertTrue(names.contains("x-trace"), "\(names)")
        for name in ["authorization", "cookie", "proxy-authorization", "x-api-key"] {
            XCTAssertFalse(names.contains(name), name + " must not be stored")
        }
        let bytes = try Data(contentsOf: folder.appendingPathComponent("pending/" + entry.id + ".entry"))
        for secret in ["k-5e1a", "p-7c2b", "c-3a9e", "Bearer secret", "session=1"] {
            XCTAssertNil(bytes.range(of: Data(secret.utf8)), secret + " is on disk")
        }
    }

    func testWhatIsStoredIsTheBuiltRequestWithoutCredentials() throws {
        let host = makeHost()
        host.defaultHeaders = ["X-SDK-Version": "1.2", "X-API-Key": "k"]
        let outbox = makeOutbox(host: host)
        let entry = try outbox.send(EventRequest(n: 7, extraHeaders: ["Proxy-Authorization": "p", "X-Trace": "t"]))
        XCTAssertEqual(entry.method, "POST")
        XCTAssertEqual(entry.url, server.baseURL.appendingPathComponent("events"))
        // Names compare case-insensitively (Foundation on Linux respells them: X-Sdk-Version).
        func header(_ name: String) -> String? {
            entry.headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
        XCTAssertEqual(header("X-SDK-Version"), "1.2")
        XCTAssertEqual(header("X-Trace"), "t")
        XCTAssertEqual(header("Content-Type"), "application/json")
        XCTAssertEqual(header("Idempotency-Key"), entry.idempotencyKey)
        for name in ["Authorization", "Cookie", "Proxy-Authorization", "X-API-Key"] {
            XCTAssertNil(header(name), name + " must not be stored")
        }
        XCTAssertEqual(try JSONSerialization.jsonObject(with: entry.body) as? [String: Int], ["n": 7])
        // Not on disk either, anywhere in the file.
        let bytes = try Data(contentsOf: folder.appendingPathComponent("pending/" + entry.id + ".entry"))
        for secret in ["Bearer secret", "session=1", "\"p\""] {
            XCTAssertNil(bytes.range(of: Data(secret.utf8)), secret + " is on disk")
        }
        XCTAssertEqual(outbox.pendingEntries().map(\.id), [entry.id])
    }

    func testDeliveryRunsThroughTheHostsPipelineWithTheTokenOfDeliveryTime() throws {
        serveEvents()
        let host = makeHost()
        let outbox = makeOutbox(host: host)
        let entry = try outbox.send(EventRequest(n: 1))
        // The token changes after the entry was stored (a refresh, a relaunch): the new one goes.
        host.interceptors = [BearerInterceptor(token: "fresh")]
        let delivered = Collector<OutboxEntry>()
        outbox.onDelivered = { delivered.append($0) }
        outbox.resume()
        waitUntil("delivered") { delivered.count == 1 }
        let request = try XCTUnwrap(log.events.first?.request)
        XCTAssertEqual(request.header("Authorization"), "Bearer fresh")
        XCTAssertNil(request.header("Cookie"))
        XCTAssertEqual(request.header("Idempotency-Key"), entry.idempotencyKey)
        XCTAssertEqual(request.header("X-SDK-Version"), nil)
        XCTAssertEqual(delivered.values.first?.id, entry.id)
        waitUntil("file removed") { files("pending").isEmpty }
        XCTAssertEqual(outbox.pendingCount, 0)
    }

    /// A width of 3: three attempts go out together, a fourth only once one of them has its
    /// answer (every answer takes 0.4 s, so arrival k + 3 is at least 0.4 s after arrival k),
    /// and each attempt is logged with its status and measured duration by the host's
    /// `LoggingInterceptor`, as any request of the host.
    func testAWiderOutboxKeepsAtMostItsWidthInFlightAndEachAttemptIsLoggedWithItsMetrics() throws {
        serveEvents { _ in .delayed(0.4, .status(201)) }
        let host = makeHost()
        let lines = Collector<String>()
        host.interceptors = [LoggingInterceptor(level: .info) { _, text in lines.append(text) }]
        let outbox = makeOutbox(host: host, options: fastOptions(width: 3))
        for n in 1...9 { try outbox.send(EventRequest(n: n)) }
        outbox.resume()
        waitUntil("all delivered") { outbox.pendingCount == 0 }
        let arrivals = log.events.map(\.request.receivedAt).sorted()
        XCTAssertEqual(arrivals.count, 9)
        guard arrivals.count == 9 else { return }
        XCTAssertLessThan(arrivals[2].timeIntervalSince(arrivals[0]), 0.4, "three attempts in flight together")
        XCTAssertEqual(Set(log.numbers.prefix(3)), [1, 2, 3], "the oldest three first")
        for k in 0..<6 {
            XCTAssertGreaterThanOrEqual(arrivals[k + 3].timeIntervalSince(arrivals[k]), 0.4 - 0.005, "a fourth attempt in flight at arrival \(k + 3)")
        }
        let answers = lines.values.filter { $0.hasPrefix("← 201 POST") && $0.contains("/events") }
        XCTAssertEqual(answers.count, 9, lines.values.joined(separator: "\n"))
        for answer in answers {
            let milliseconds = answer.components(separatedBy: " ").dropFirst(4).first.flatMap { Int($0) } ?? -1
            XCTAssertGreaterThanOrEqual(milliseconds, 395, "the attempt's measured duration: \(answer)")
        }
    }

    func testTheHostsTokenRefreshesAndReplaysWithinADeliveryWithTheSameKey() throws {
        serveEvents()
        server.route("POST", "/events") { [log] request in
            log.record(request)
            return request.header("Authorization") == "Bearer new" ? .status(200) : .status(401)
        }
        let host = makeHost()
        let refreshes = Collector<Int>()
        host.authenticator = TokenAuthenticator(token: "old") { done in
            refreshes.append(1)
            done(.success("new"))
        }
        let outbox = makeOutbox(host: host)
        let entry = try outbox.send(EventRequest(n: 1))
        outbox.resume()
        waitUntil("delivered") { outbox.pendingCount == 0 }
        XCTAssertEqual(log.events.map { $0.request.header("Authorization") }, ["Bearer old", "Bearer new"])
        XCTAssertEqual(log.events.map(\.key), [entry.idempotencyKey, entry.idempotencyKey])
        XCTAssertEqual(refreshes.count, 1)
        XCTAssertEqual(outbox.deadLetters().count, 0)
    }

    func testARequestThatBringsItsOwnKeyKeepsItAndAConfiguredHeaderCarriesIt() throws {
        serveEvents()
        let outbox = makeOutbox(options: fastOptions(idempotencyHeader: "X-Request-Id"))
        let own = try outbox.send(EventRequest(n: 1, extraHeaders: ["x-request-id": "mine-1"]))
        let made = try outbox.send(EventRequest(n: 2))
        XCTAssertEqual(own.idempotencyKey, "mine-1")
        XCTAssertNotEqual(made.idempotencyKey, "mine-1")
        outbox.resume()
        waitUntil("both delivered") { outbox.pendingCount == 0 && log.events.count == 2 }
        XCTAssertEqual(log.events.map { $0.request.header("X-Request-Id") }, ["mine-1", made.idempotencyKey])
        XCTAssertEqual(log.events.map { $0.request.header("Idempotency-Key") }, [nil, nil])
    }

    func testEntriesGoOldestFirstAndEveryRetryCarriesTheSameKey() throws {
        let failures = Collector<Int>()
        serveEvents { n in
            // Entry 2 fails twice with 503, then is accepted.
            if n == 2, failures.values.filter({ $0 == 2 }).count < 2 {
                failures.append(2)
                return .status(503)
            }
            return .status(201)
        }
        let outbox = makeOutbox()
        let entries = try (1...5).map { try outbox.send(EventRequest(n: $0)) }
        outbox.resume()
        waitUntil("all delivered") { outbox.pendingCount == 0 }
        XCTAssertEqual(log.numbers, [1, 2, 2, 2, 3, 4, 5], "a retry keeps its place: the outbox waits, then sends it first")
        let keys = log.events.filter { $0.n == 2 }.map(\.key)
        XCTAssertEqual(Set(keys), [entries[1].idempotencyKey])
        XCTAssertEqual(Set(log.events.compactMap(\.key)).count, 5)
    }

    func testPauseStopsNewAttemptsAndCancelsNoneAndResumeGoesOn() throws {
        serveEvents { _ in .delayed(0.2, .status(200)) }
        let outbox = makeOutbox()
        for n in 1...3 { try outbox.send(EventRequest(n: n)) }
        let delivered = Collector<String>()
        outbox.onDelivered = { delivered.append($0.id) }
        outbox.resume()
        waitUntil("first attempt arrived") { log.events.count == 1 }
        outbox.pause()
        XCTAssertTrue(outbox.isPaused)
        // The attempt in flight ends as it would have: delivered, not cancelled.
        waitUntil("the attempt in flight delivered") { delivered.count == 1 }
        usleep(400_000)
        XCTAssertEqual(log.events.count, 1, "no attempt starts while paused")
        XCTAssertEqual(outbox.pendingCount, 2)
        outbox.resume()
        waitUntil("the rest delivered") { outbox.pendingCount == 0 }
        XCTAssertEqual(log.numbers, [1, 2, 3])
    }

    func testACancelledDeliveryIsNoAttemptAndTheEntryGoesAgain() throws {
        serveEvents { _ in .delayed(0.3, .status(200)) }
        let outbox = makeOutbox()
        let entry = try outbox.send(EventRequest(n: 1))
        let delivered = Collector<OutboxEntry>()
        outbox.onDelivered = { delivered.append($0) }
        // Cancelled while it waits in the SDK's suspended queue (it never runs)...
        queue.isSuspended = true
        outbox.resume()
        waitUntil("queued") { queue.operationCount == 1 }
        queue.cancelAllOperations()
        queue.isSuspended = false
        // ...then while in flight.
        waitUntil("sent") { log.events.count == 1 }
        queue.cancelAllOperations()
        waitUntil("delivered after all") { delivered.count == 1 }
        XCTAssertEqual(log.events.map(\.key), [entry.idempotencyKey, entry.idempotencyKey])
        XCTAssertEqual(delivered.values.first?.attempts, 0, "cancellations are not attempts")
        XCTAssertEqual(outbox.deadLetters().count, 0)
    }

    func testAnOutboxSurvivesItsProcessAndANewOneDeliversWhatWasStored() throws {
        serveEvents()
        var first: Outbox? = makeOutbox()
        let stored = try (1...3).map { try first?.send(EventRequest(n: $0)).idempotencyKey }
        first = nil  // "the app was killed": nothing was delivered
        let second = makeOutbox()
        XCTAssertEqual(second.pendingCount, 3)
        second.resume()
        waitUntil("delivered after the relaunch") { second.pendingCount == 0 }
        XCTAssertEqual(log.events.map(\.key), stored)
    }

    func testAMultipartRequestOrOneThatCannotBeBuiltIsRefusedWithATypedError() {
        let outbox = makeOutbox()
        XCTAssertThrowsError(try outbox.send(MultipartEvent())) { error in
            XCTAssertEqual((error as? OutboxError)?.code, .invalidRequest)
        }
        let unconfigured = Outbox(host: HostConfiguration(baseURL: nil), queue: queue, folder: folder)
        XCTAssertThrowsError(try unconfigured.send(EventRequest(n: 1))) { error in
            XCTAssertEqual((error as? OutboxError)?.code, .invalidRequest)
            XCTAssertEqual(((error as? OutboxError)?.underlyingError as? NetworkError)?.kind, .notConfigured)
        }
        XCTAssertEqual(files("pending"), [])
    }

    func testTheDefaultFolderIsNamedAfterTheCallingModuleInTheDataHome() {
        let url = Outbox.defaultFolder()
        XCTAssertEqual(url.lastPathComponent, "Outbox")
        XCTAssertEqual(url.deletingLastPathComponent().lastPathComponent, "EasyNetworkOutboxTests")
        XCTAssertFalse(url.path.contains("Caches") || url.path.contains("/.cache/"), url.path)
#if os(Linux)
        let data = ProcessInfo.processInfo.environment["XDG_DATA_HOME"] ?? (NSHomeDirectory() + "/.local/share")
        XCTAssertTrue(url.path.hasPrefix(data), url.path)
#else
        XCTAssertTrue(url.path.contains("Application Support"), url.path)
#endif
        XCTAssertEqual(Outbox(host: makeHost()).folder, url)
        XCTAssertEqual(Outbox.defaultFolder(name: "Uploads", fileID: "AcmeSDK/Uploader.swift").pathComponents.suffix(2), ["AcmeSDK", "Uploads"])
    }
}

private struct MultipartEvent: BaseAPIRequest {
    var api: String { "/upload" }
    var method: NetworkService.Method { .post }
    var query: NetworkService.QueryType { .json }
    var params: [String: Any]? { nil }
    var headers: [String: String]? { nil }
    var multipartBody: MultipartFormData? {
        var form = MultipartFormData()
        form.append("v", name: "k")
        return form
    }
}

/// An envelope whose body says `"ok": false` when the call failed (`business`); any other
/// JSON body is its own payload.
private struct OkFlagEnvelope: PayloadReader {
    var payloadKey: String? { nil }

    func payload(of body: Any?, in response: NetworkResponse) throws -> Any? {
        if (body as? [String: Any])?["ok"] as? Bool == false {
            throw NetworkError(kind: .business, message: "the server said no", statusCode: response.statusCode)
        }
        return body
    }

    func decodePayload<T: Decodable>(_ type: T.Type, decoder: JSONDecoder, in response: NetworkResponse) throws -> T? {
        try decoder.decode(T.self, from: response.data)
    }
}
