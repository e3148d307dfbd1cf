import EasyNetwork
import EasyNetworkEnvelopes
import EasyNetworkTesting
import Foundation
import XCTest

struct QuietRequest: BaseAPIRequest {
    var api: String
    var method: NetworkService.Method { .get }
    var query: NetworkService.QueryType { .path }
    var params: [String: Any]? { nil }
    var headers: [String: String]? { nil }
    var suppressesErrorHandler: Bool { true }
}

/// A typed request that succeeds with the status it read.
private struct StatusRequest: APIRequest {
    typealias Response = Int
    let code: Int
    var api: String { "/status/\(code)" }
    var responseDecoder: ResponseDecoder<Int> { ResponseDecoder { $0.statusCode } }
}

/// ``DeliverStage``: the host's error handler and the unauthorized notification, before the caller hears.
final class DeliverStageTests: ServerTestCase {
    /// An awaited typed request (`try await queue.send`) resumes its task as soon as its
    /// value is known: nothing of the caller's runs on the callback queue for it, so a
    /// success does not wait for that queue (here suspended). A failure still goes there
    /// first: the host's error handler runs before the task hears.
    func testAnAwaitedSuccessResumesWithoutTheCallbackQueueAndAFailureAfterTheErrorHandler() {
        let host = makeHost()
        let blocked = DispatchQueue(label: "EasyNetworkTests.blocked")
        host.callbackQueue = blocked
        let events = Collector<String>()
        host.errorHandler = { _, error in events.append("handler \(error.statusCode ?? 0)") }
        blocked.suspend()
        let succeeded = expectation(description: "success")
        Task {
            let code = try? await NetworkQueue().send(StatusRequest(code: 200), configuration: host)
            events.append("value \(code ?? 0)")
            succeeded.fulfill()
        }
        wait(for: [succeeded], timeout: 5)
        let failed = expectation(description: "failure")
        Task {
            do {
                _ = try await NetworkQueue().send(StatusRequest(code: 500), configuration: host)
            } catch {
                events.append("thrown \((error as? NetworkError)?.statusCode ?? 0)")
            }
            failed.fulfill()
        }
        // The failure waits for the callback queue.
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(events.values, ["value 200"])
        blocked.resume()
        wait(for: [failed], timeout: 5)
        XCTAssertEqual(events.values, ["value 200", "handler 500", "thrown 500"])
    }

    func testHandlerIsCalledOncePerFailureBeforeTheFailureCallback() {
        let host = makeHost()
        host.envelope = .codeEquals(0)
        server.route("GET", "/biz") { _ in .json(#"{"code": 7, "msg": "nope"}"#) }
        server.route("GET", "/fine") { _ in .json(#"{"code": 0, "data": {}}"#) }
        let events = Collector<String>()
        host.errorHandler = { request, error in
            dispatchPrecondition(condition: .onQueue(self.callbackQueue))
            events.append("handler \(request.api) \(error.kind)")
        }
        for path in ["/status/500", "/biz", "/malformed-json", "/fine"] {
            let done = expectation(description: path)
            let op = RequestOperation(request: TestRequest(path), configuration: host, responseDecoder: .json)
            op.completion = { result in
                if case .failure = result { events.append("failure \(path)") }
                done.fulfill()
            }
            NetworkQueue().addOperation(op)
            wait(for: [done], timeout: 5)
        }
        XCTAssertEqual(events.values, [
            "handler /status/500 unacceptableStatus", "failure /status/500",
            "handler /biz business", "failure /biz",
            "handler /malformed-json decoding", "failure /malformed-json",
        ])
    }

    func testHandlerIgnoresCancellationsAndOptedOutRequests() {
        let host = makeHost()
        let calls = Collector<String>()
        host.errorHandler = { request, _ in calls.append(request.api) }
        _ = send(QuietRequest(api: "/status/500"), host: host)

        let op = RequestOperation(request: TestRequest("/delay/2000"), configuration: host, responseDecoder: .json)
        let done = expectation(description: "cancelled")
        op.completion = { _ in done.fulfill() }
        NetworkQueue().addOperation(op)
        waitForRequests(path: "/delay/2000", count: 1)
        op.cancel()
        wait(for: [done], timeout: 3)

        let early = RequestOperation(request: TestRequest("/echo"), configuration: host, responseDecoder: .json)
        early.cancel()
        NetworkQueue().addOperation(early)
        waitUntilFinished(early)
        callbackQueue.sync {}

        XCTAssertEqual(calls.values, [])
        _ = send(TestRequest("/status/404"), host: host)
        XCTAssertEqual(calls.values, ["/status/404"])
    }

    func testUnauthorizedPostsNotificationForItsOwnHostOnly() {
        for path in ["/status/401", "/status/401?challenge=1"] {
            let host = makeHost()
            let other = makeHost()
            let seen = Collector<NetworkError>()
            let observer = NotificationCenter.default.addObserver(
                forName: HostConfiguration.unauthorizedOperationNotification, object: host, queue: nil
            ) { note in
                if let error = note.userInfo?["error"] as? NetworkError { seen.append(error) }
            }
            let otherSeen = Collector<Bool>()
            let otherObserver = NotificationCenter.default.addObserver(
                forName: HostConfiguration.unauthorizedOperationNotification, object: other, queue: nil
            ) { _ in otherSeen.append(true) }
            let started = Date()
            let error = failure(of: send(TestRequest(path), host: host, timeout: 5))
            XCTAssertLessThan(Date().timeIntervalSince(started), 3, "a 401 must never hang: \(path)")
            XCTAssertEqual(error?.statusCode, 401, path)
            XCTAssertEqual(error?.kind, .unacceptableStatus, path)
            XCTAssertTrue(error?.isUnauthorized ?? false)
            XCTAssertEqual(seen.count, 1, path)
            XCTAssertEqual(otherSeen.count, 0, path)
            NotificationCenter.default.removeObserver(observer)
            NotificationCenter.default.removeObserver(otherObserver)
        }
        XCTAssertEqual(server.requests(path: "/status/401").last?.query, "challenge=1")
    }
}
