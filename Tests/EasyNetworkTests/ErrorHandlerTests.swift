import EasyNetwork
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

final class ErrorHandlerTests: ServerTestCase {
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
}
