import EasyNetwork
import EasyNetworkRetry
import EasyNetworkPlugins
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An interceptor that records each step it sees under its name.
struct RecordingInterceptor: RequestInterceptor {
    let name: String
    let log: Collector<String>

    func adapt(_ urlRequest: URLRequest, context: RequestContext) throws -> URLRequest {
        log.append("\(name).adapt#\(context.attempt)")
        var request = urlRequest
        let chain = (request.value(forHTTPHeaderField: "X-Chain").map { $0 + "," } ?? "") + name
        request.setValue(chain, forHTTPHeaderField: "X-Chain")
        return request
    }
    func willSend(_ urlRequest: URLRequest, context: RequestContext) { log.append("\(name).willSend") }
    func didReceive(_ response: HTTPURLResponse?, data: Data, error: (any Error)?, context: RequestContext) { log.append("\(name).didReceive \(response?.statusCode ?? 0)") }
    func validate(_ response: NetworkResponse, context: RequestContext) throws { log.append("\(name).validate") }
    func didFinish(_ outcome: RequestOutcome, context: RequestContext) { log.append("\(name).didFinish \(outcome.error == nil ? "ok" : "error")") }
}

struct InterceptedRequest: BaseAPIRequest {
    let api: String
    let extra: [any RequestInterceptor]
    var method: NetworkService.Method { .get }
    var query: NetworkService.QueryType { .path }
    var params: [String: Any]? { nil }
    var headers: [String: String]? { nil }
    var interceptors: [any RequestInterceptor] { extra }
}

struct Refused: Error {}

final class InterceptorTests: ServerTestCase {
    func testHostInterceptorsRunBeforeTheRequestsInEveryStep() {
        let log = Collector<String>()
        let host = makeHost()
        host.interceptors = [RecordingInterceptor(name: "A", log: log), RecordingInterceptor(name: "B", log: log)]
        let result = send(InterceptedRequest(api: "/echo", extra: [RecordingInterceptor(name: "C", log: log)]), host: host)
        XCTAssertNotNil(value(of: result))
        XCTAssertEqual(log.values, [
            "A.adapt#1", "B.adapt#1", "C.adapt#1",
            "A.willSend", "B.willSend", "C.willSend",
            "A.didReceive 200", "B.didReceive 200", "C.didReceive 200",
            "A.validate", "B.validate", "C.validate",
            "A.didFinish ok", "B.didFinish ok", "C.didFinish ok",
        ])
        XCTAssertEqual(server.requests(path: "/echo").first?.header("X-Chain"), "A,B,C")
    }

    func testInterceptorsSeeEachRetryAttempt() {
        let log = Collector<String>()
        let script = Script([.status(502), .json("{}")])
        server.route("GET", "/retry") { _ in script.next() }
        let host = makeHost()
        host.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: 0.01)
        host.interceptors = [RecordingInterceptor(name: "A", log: log)]
        _ = send(TestRequest("/retry"), host: host)
        XCTAssertEqual(log.values, ["A.adapt#1", "A.willSend", "A.didReceive 502", "A.adapt#2", "A.willSend", "A.didReceive 200", "A.validate", "A.didFinish ok"])
    }

    func testRequestIDIsKeptAcrossAttemptsAndDiffersBetweenRequests() {
        let seen = Collector<String>()
        let script = Script([.status(502), .json("{}"), .json("{}")])
        server.route("GET", "/retry") { _ in script.next() }
        let host = makeHost()
        host.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: 0.01)
        let endings = Collector<RequestOutcome>()
        host.interceptors = [ClosureInterceptor(
            willSend: { _, context in seen.append("\(context.requestID)#\(context.attempt)") },
            didFinish: { outcome, context in
                endings.append(outcome)
                seen.append("\(context.requestID) done")
            }
        )]
        _ = send(TestRequest("/retry"), host: host)
        _ = send(TestRequest("/retry"), host: host)
        // What didFinish gets is the last attempt's request and answer.
        let first = endings.values.first
        XCTAssertEqual(first?.urlRequest?.url?.path, "/retry")
        XCTAssertEqual(first?.response?.statusCode, 200, "the retry's answer, not the 502")
        XCTAssertEqual(first?.data, Data("{}".utf8))
        XCTAssertNil(first?.error)
        XCTAssertEqual(first?.metrics.attempts, 2)
        let ids = seen.values.compactMap { Int($0.prefix { $0.isNumber }) }
        XCTAssertEqual(ids.count, 5, "\(seen.values)")
        XCTAssertTrue(ids.allSatisfy { $0 > 0 }, "\(seen.values)")
        XCTAssertEqual(Set(ids.prefix(3)).count, 1, "one number across both attempts and the end: \(seen.values)")
        XCTAssertEqual(Set(ids).count, 2, "another for the second request: \(seen.values)")
    }

    func testAdaptFailureFailsTheRequestWithoutSendingIt() {
        let host = makeHost()
        host.interceptors = [ClosureInterceptor(adapt: { _, _ in throw Refused() })]
        let error = failure(of: send(TestRequest("/echo"), host: host))
        XCTAssertEqual(error?.kind, .invalidRequest)
        XCTAssertTrue(error?.underlyingError is Refused)
        XCTAssertEqual(server.requests.count, 0)
        host.interceptors = [ClosureInterceptor(adapt: { _, _ in throw NetworkError(kind: .encoding, message: "cannot sign") })]
        XCTAssertEqual(failure(of: send(TestRequest("/echo"), host: host))?.message, "cannot sign")
    }

    func testValidateCanTurnA200IntoAFailure() {
        let host = makeHost()
        host.interceptors = [ClosureInterceptor(validate: { response, _ in
            if response.header("Content-Type") == "application/json", response.data.count > 5 {
                throw NetworkError(kind: .unacceptableStatus, message: "maintenance mode", response: response.httpResponse)
            }
        })]
        let error = failure(of: send(TestRequest("/echo"), host: host))
        XCTAssertEqual(error?.message, "maintenance mode")
        XCTAssertEqual(error?.statusCode, 200)
    }

    func testSigningBodyInAdapt() {
        let host = makeHost()
        host.interceptors = [ClosureInterceptor(adapt: { request, _ in
            var signed = request
            signed.setValue(String(request.httpBody?.count ?? 0), forHTTPHeaderField: "X-Body-Length")
            signed.httpBody = Data((request.httpBody ?? Data()).reversed())
            return signed
        })]
        _ = send(TestRequest("/echo", method: .post, query: .form, params: ["a": "1"]), host: host)
        let recorded = server.requests(path: "/echo").first
        XCTAssertEqual(recorded?.header("X-Body-Length"), "3")
        XCTAssertEqual(recorded.map { String(decoding: $0.body, as: UTF8.self) }, "1=a")
    }

    // MARK: redirects

    func testCrossHostRedirectDropsAuthorizationAndCookie() throws {
        let other = try LoopbackServer()
        defer { other.stop() }
        let target = other.baseURL.appendingPathComponent("landing").absoluteString
        server.route("GET", "/away") { _ in .status(302, headers: ["Location": target]) }
        server.route("GET", "/here") { _ in .status(302, headers: ["Location": "/echo"]) }
        let host = makeHost()
        host.authenticator = TokenAuthenticator(token: "tok") { done in done(.success("tok")) }
        other.route("GET", "/landing") { _ in .json(#"{"landed": true}"#) }
        let headers = ["Cookie": "sid=1"]
        XCTAssertEqual((value(of: send(TestRequest("/away", headers: headers), host: host)) as? [String: Bool])?["landed"], true)
        let landed = try XCTUnwrap(other.requests(path: "/landing").first)
        XCTAssertNil(landed.header("Authorization"))
        XCTAssertNil(landed.header("Cookie"))

        _ = send(TestRequest("/here", headers: headers), host: host)
        XCTAssertEqual(server.requests(path: "/echo").first?.header("Authorization"), "Bearer tok", "same origin keeps it")
    }

    func testRedirectHandlerCanRefuse() {
        server.route("GET", "/moved") { _ in .status(301, headers: ["Location": "/echo"]) }
        let host = makeHost()
        host.redirectHandler = { _, _ in nil }
        let error = failure(of: send(TestRequest("/moved"), host: host))
        XCTAssertEqual(error?.statusCode, 301)
        XCTAssertEqual(server.requests(path: "/echo").count, 0)
    }
}
