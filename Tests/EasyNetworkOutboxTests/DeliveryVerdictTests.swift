import EasyNetwork
import EasyNetworkTesting
@testable import EasyNetworkOutbox
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The retry rule: transport errors, 408, 429 and 5xx retry (Retry-After honoured); any
/// other answer is final and becomes a dead letter with its status and body; attempts and
/// age are limited.
final class DeliveryVerdictTests: OutboxTestCase {
    func testAFinalAnswerBecomesADeadLetterWithItsStatusAndBodyAndACallback() throws {
        serveEvents { n in n == 2 ? .json("{\"error\":\"unknown event\"}", status: 422) : .status(200) }
        let outbox = makeOutbox()
        for n in 1...3 { try outbox.send(EventRequest(n: n)) }
        let letters = Collector<OutboxDeadLetter>()
        outbox.onDeadLetter = { letters.append($0) }
        outbox.resume()
        waitUntil("drained") { outbox.pendingCount == 0 && letters.count == 1 }
        XCTAssertEqual(log.numbers, [1, 2, 3], "a final answer is not retried, and blocks nothing")
        let letter = try XCTUnwrap(letters.values.first)
        XCTAssertEqual(letter.statusCode, 422)
        XCTAssertEqual(String(decoding: letter.responseBody, as: UTF8.self), "{\"error\":\"unknown event\"}")
        XCTAssertTrue(letter.reason.contains("422"), letter.reason)
        XCTAssertEqual(try JSONSerialization.jsonObject(with: letter.entry.body) as? [String: Int], ["n": 2])
        XCTAssertEqual(outbox.deadLetters().map(\.id), [letter.id])
        XCTAssertEqual(files("dead"), [letter.id + ".entry"])

        // A relaunch still has it; retried, it goes again with its key; removed, it is gone.
        let relaunched = makeOutbox()
        XCTAssertEqual(relaunched.deadLetters().first?.statusCode, 422)
        server.route("POST", "/events") { [log] request in log.record(request); return .status(200) }
        try relaunched.retryDeadLetter(XCTUnwrap(relaunched.deadLetters().first))
        relaunched.resume()
        waitUntil("retried") { relaunched.pendingCount == 0 && log.events.count == 4 }
        XCTAssertEqual(log.events.last?.key, letter.entry.idempotencyKey)
        XCTAssertEqual(relaunched.deadLetters().count, 0)
        XCTAssertEqual(files("dead"), [])
    }

    func testRetryableAnswersRetryWithTheSameKeyAndRetryAfterIsHonoured() throws {
        let answers: [LoopbackReply] = [.status(503, headers: ["Retry-After": "1"]), .status(429), .status(408), .status(500), .status(204)]
        let index = Collector<Int>()
        serveEvents { _ in
            index.append(0)
            return answers[min(index.count, answers.count) - 1]
        }
        let outbox = makeOutbox()
        let entry = try outbox.send(EventRequest(n: 1))
        outbox.resume()
        waitUntil("delivered") { outbox.pendingCount == 0 }
        let events = log.events
        XCTAssertEqual(events.count, 5)
        XCTAssertEqual(Set(events.map(\.key)), [entry.idempotencyKey])
        let wait = events[1].request.receivedAt.timeIntervalSince(events[0].request.receivedAt)
        XCTAssertGreaterThanOrEqual(wait, 0.2, "Retry-After: 1 is honoured up to maxRetryDelay (0.2 s here)")
        XCTAssertEqual(outbox.deadLetters().count, 0)
    }

    func testAnEntryOutOfAttemptsIsADeadLetterAndItsAttemptsSurviveARelaunch() throws {
        serveEvents { _ in .status(502) }
        var first: Outbox? = makeOutbox(options: fastOptions(maxAttempts: 4))
        try first?.send(EventRequest(n: 1))
        first?.resume()
        waitUntil("two attempts recorded") { (first?.pendingEntries().first?.attempts ?? 0) >= 2 }
        first?.pause()
        // The attempt in flight, if any, ends and is recorded: every arrival is counted on disk.
        waitUntil("attempts recorded") { first?.pendingEntries().first?.attempts == log.events.count }
        first = nil
        let attemptsBefore = log.events.count
        let second = makeOutbox(options: fastOptions(maxAttempts: 4))
        let letters = Collector<OutboxDeadLetter>()
        second.onDeadLetter = { letters.append($0) }
        second.resume()
        waitUntil("dead letter") { letters.count == 1 }
        XCTAssertEqual(log.events.count, 4, "4 attempts in all across both processes (\(attemptsBefore) before the relaunch)")
        XCTAssertEqual(letters.values.first?.statusCode, 502)
        XCTAssertEqual(letters.values.first?.entry.attempts, 4)
        XCTAssertTrue(letters.values.first?.reason.contains("maxAttempts") == true)
    }

    func testAttemptsThatNeverReachedAServerDoNotCountButAgeEndsThem() throws {
        // A port nothing listens on: connection refused, an attempt that never left.
        let closed = try LoopbackServer()
        let url = closed.baseURL
        closed.stop()
        let host = HostConfiguration(baseURL: url)
        host.callbackQueue = callbackQueue
        let outbox = makeOutbox(host: host, options: fastOptions(maxAttempts: 2, maxAge: 1))
        try outbox.send(EventRequest(n: 1))
        let letters = Collector<OutboxDeadLetter>()
        outbox.onDeadLetter = { letters.append($0) }
        outbox.resume()
        waitUntil("dead letter by age") { letters.count == 1 }
        let letter = try XCTUnwrap(letters.values.first)
        XCTAssertGreaterThan(letter.entry.attempts, 2, "refused connections retried past maxAttempts: they do not count")
        XCTAssertNil(letter.statusCode)
        XCTAssertTrue(letter.reason.contains("maxAge"), letter.reason)
    }

    func testTheVerdictOfEachOutcome() {
        func failed(_ status: Int) -> NetworkError {
            NetworkError(kind: .unacceptableStatus, statusCode: status)
        }
        XCTAssertEqual(DeliveryVerdict.judge(nil), .delivered)
        XCTAssertEqual(DeliveryVerdict.judge(NetworkError(kind: .cancelled)), .notSent, "cancelled before it ran, or in flight")
        for status in [408, 429, 500, 503, 599] {
            XCTAssertEqual(DeliveryVerdict.judge(failed(status)), .retry(counted: true), "\(status)")
        }
        for status in [400, 401, 403, 404, 409, 422, 304] {
            XCTAssertEqual(DeliveryVerdict.judge(failed(status)), .final, "\(status)")
        }
        XCTAssertEqual(DeliveryVerdict.judge(NetworkError(kind: .transport, underlyingError: URLError(.timedOut))), .retry(counted: true))
        XCTAssertEqual(DeliveryVerdict.judge(NetworkError(kind: .transport, underlyingError: URLError(.notConnectedToInternet))), .retry(counted: false))
        XCTAssertEqual(DeliveryVerdict.judge(NetworkError(kind: .authentication)), .retry(counted: true))
        XCTAssertEqual(DeliveryVerdict.judge(NetworkError(kind: .business, businessCode: "9")), .final)
        let options = OutboxOptions(retryDelay: 1, maxRetryDelay: 10)
        XCTAssertEqual(DeliveryVerdict.delay(after: 1, error: nil, options: options), 1, accuracy: 0.2)
        XCTAssertEqual(DeliveryVerdict.delay(after: 3, error: nil, options: options), 4, accuracy: 0.8)
        XCTAssertEqual(DeliveryVerdict.delay(after: 20, error: nil, options: options), 10, accuracy: 2)
        let patient = OutboxOptions(retryDelay: 1, maxRetryDelay: 100)
        let response = HTTPURLResponse(url: URL(fileURLWithPath: "/"), statusCode: 429, httpVersion: nil, headerFields: ["Retry-After": "42"])
        XCTAssertEqual(DeliveryVerdict.delay(after: 1, error: NetworkError(kind: .unacceptableStatus, response: response), options: patient), 42)
    }
}
