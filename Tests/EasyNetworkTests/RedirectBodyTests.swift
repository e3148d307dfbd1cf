import EasyNetwork
import EasyNetworkRetry
import EasyNetworkTesting
import EasyNetworkPlugins
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A seed-style operation as the README teaches it: a POST with `.json` params.
private final class PostOperation: ServiceOperation, @unchecked Sendable {
    private let request: TestRequest
    var success: ((Any?) -> Void)?
    var failure: ((Error) -> Void)?
    init(_ request: TestRequest, configuration: HostConfiguration) {
        self.request = request
        super.init(configuration: configuration)
    }
    override func execute() {
        service.request(request, success: { [weak self] in self?.success?($0); self?.finish() },
                        failure: { [weak self] in self?.failure?($0); self?.finish() })
    }
}

/// What the target route saw, as it answers: method and body.
private struct Landing: Decodable, Equatable {
    let method: String
    let body: String
}

private struct TypedPost: APIRequest {
    typealias Response = Landing
    var api: String
    var method: NetworkService.Method { .post }
    var query: NetworkService.QueryType { .json }
    var params: [String: Any]? { ["name": "Ana", "items": [1, 2, 3]] }
    var timeout: TimeInterval?
}

private struct EncodablePut: APIRequest {
    typealias Response = Landing
    struct Body: Encodable { let note: String }
    var api: String
    var method: NetworkService.Method { .put }
    var encodableBody: (any Encodable)? { Body(note: "kept") }
}

/// 307 and 308 keep the method and the body (RFC 9110 15.4.8, 15.4.9): what the target
/// receives is what was sent, on every path a body takes (seed closures, `async` send, a
/// form, an `Encodable` body, a multipart body file in memory and streamed, a task with a
/// completion handler and a delegate-driven one). swift-corelibs-foundation sends such a
/// redirect with `Content-Length: 0`; EasyNetwork follows it itself there.
final class RedirectBodyTests: ServerTestCase {
    private let json = #"{"items":[1,2,3],"name":"Ana"}"#

    override func setUpWithError() throws {
        try super.setUpWithError()
        for code in [301, 302, 303, 307, 308] {
            server.route("/moved/\(code)") { _ in .status(code, headers: ["Location": "/target"]) }
        }
        server.route("/target") { request in
            .json(object: ["method": request.method, "body": String(decoding: request.body, as: UTF8.self)])
        }
    }

    private func landing(_ value: Any?, file: StaticString = #filePath, line: UInt = #line) -> [String: String]? {
        guard let dictionary = value as? [String: String] else {
            XCTFail("no landing: \(String(describing: value))", file: file, line: line)
            return nil
        }
        return dictionary
    }

    /// The seed's way: a ServiceOperation subclass on a queue, closures calling back.
    func testSeedOperationPostKeepsItsBodyThrough307And308() {
        // 30: a whole number of seconds (a task with a completion handler on Linux); 30.5: delegate-driven.
        for code in [307, 308] {
            for timeout in [30.0, 30.5] {
                server.resetRecords()
                let done = expectation(description: "\(code)")
                let result = Collector<Any?>()
                let request = TestRequest("/moved/\(code)", method: .post, query: .json, params: ["name": "Ana", "items": [1, 2, 3]], timeout: timeout)
                let op = PostOperation(request, configuration: makeHost())
                op.success = { result.append($0); done.fulfill() }
                op.failure = { error in XCTFail("\(code) \(timeout): \(error)"); done.fulfill() }
                NetworkQueue().addOperation(op)
                wait(for: [done], timeout: 10)
                let target = server.requests(path: "/target")
                XCTAssertEqual(target.count, 1, "\(code) \(timeout)")
                XCTAssertEqual(target.first?.method, "POST", "\(code) \(timeout)")
                XCTAssertEqual(target.first.map { String(decoding: $0.body, as: UTF8.self) }, json, "\(code) \(timeout): the body arrives")
                XCTAssertEqual(target.first?.header("Content-Type"), "application/json", "\(code) \(timeout)")
                XCTAssertEqual(landing(result.values.first ?? nil)?["body"], json, "\(code) \(timeout)")
                XCTAssertEqual(server.requests(path: "/moved/\(code)").count, 1, "\(code) \(timeout): sent once")
                waitUntilFinished(op)
            }
        }
    }

    /// `try await queue.send` with `.json` params, and an `Encodable` body on a PUT.
    func testAsyncSendKeepsItsBodyThrough307And308() async throws {
        for code in [307, 308] {
            for timeout in [30.0, 30.5] {
                let landed = try await NetworkQueue().send(TypedPost(api: "/moved/\(code)", timeout: timeout), configuration: makeHost())
                XCTAssertEqual(landed, Landing(method: "POST", body: json), "\(code) \(timeout)")
            }
            let put = try await NetworkQueue().send(EncodablePut(api: "/moved/\(code)"), configuration: makeHost())
            XCTAssertEqual(put, Landing(method: "PUT", body: #"{"note":"kept"}"#), "\(code)")
        }
    }

    /// A form arrives as it does without the redirect.
    func testFormBodyKeepsItsBodyThrough307() {
        let params: [String: Any] = ["a": "1", "b": "two words"]
        let direct = landing(value(of: send(TestRequest("/target", method: .post, query: .form, params: params))))
        let moved = landing(value(of: send(TestRequest("/moved/307", method: .post, query: .form, params: params))))
        XCTAssertEqual(moved, direct)
        XCTAssertFalse(direct?["body"]?.isEmpty ?? true)
        let target = server.requests(path: "/target")
        XCTAssertEqual(target.count, 2)
        XCTAssertEqual(target.last?.header("Content-Type"), target.first?.header("Content-Type"))
    }

    /// A multipart body written to a file, below and above Linux's in-memory limit (the
    /// larger one goes out as a stream, which the follow-up reads again from the file),
    /// with and without upload progress.
    func testMultipartUploadKeepsItsBodyThrough308() throws {
        server.route("/target") { request in .json(object: ["method": request.method, "received": request.body.count]) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("redirect-upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for size in [100_000, 9_000_000] {
            let file = folder.appendingPathComponent("body-\(size).bin")
            try Data(repeating: 0x5A, count: size).write(to: file)
            var form = MultipartFormData()
            form.append(fileAt: file, name: "file")
            for watched in [false, true] {
                server.resetRecords()
                let op = RequestOperation(request: MovedUpload(form: form), configuration: makeHost(), responseDecoder: .json)
                let done = expectation(description: "upload")
                op.completion = { _ in done.fulfill() }
                if watched { op.onUploadProgress = { _ in } }
                NetworkQueue().addOperation(op)
                wait(for: [done], timeout: 30)
                XCTAssertNoThrow(try op.result?.get(), "\(size) watched \(watched)")
                let target = try XCTUnwrap(server.requests(path: "/target").first, "\(size) watched \(watched)")
                XCTAssertEqual(target.method, "POST")
                let parts = try XCTUnwrap(parseMultipart(target.body, contentType: target.header("Content-Type")), "\(size) watched \(watched)")
                XCTAssertEqual(parts.last?.body, Data(repeating: 0x5A, count: size), "\(size) watched \(watched): the body arrives whole")
            }
        }
    }

    /// A chain of 307 and 308 keeps the body to its end; a cross-origin hop drops the
    /// credentials as any redirect does, and keeps the body.
    func testChainAndCrossOriginHopKeepTheBody() throws {
        let other = try LoopbackServer()
        defer { other.stop() }
        other.route("/landing") { request in
            .json(object: ["method": request.method, "body": String(decoding: request.body, as: UTF8.self)])
        }
        let away = other.baseURL.appendingPathComponent("landing").absoluteString
        server.route("/first") { _ in .status(307, headers: ["Location": "/moved/308"]) }
        server.route("/away") { _ in .status(307, headers: ["Location": away]) }
        let chained = landing(value(of: send(TestRequest("/first", method: .post, query: .json, params: ["k": "v"]))))
        XCTAssertEqual(chained, ["method": "POST", "body": #"{"k":"v"}"#])

        let host = makeHost()
        host.interceptors = [ClosureInterceptor(adapt: { request, _ in
            var signed = request
            signed.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
            return signed
        })]
        let crossed = landing(value(of: send(TestRequest("/away", method: .post, query: .json, params: ["k": "v"]), host: host)))
        XCTAssertEqual(crossed, ["method": "POST", "body": #"{"k":"v"}"#])
        XCTAssertNil(other.requests(path: "/landing").first?.header("Authorization"), "a cross-origin hop drops credentials")
    }

    /// 301 and 302 turn a POST into a GET without a body, 303 any method: Apple's
    /// URLSession and swift-corelibs-foundation agree, and EasyNetwork keeps it.
    func testSeeOtherAndMovedPostBecomeGetWithoutBody() {
        for code in [301, 302, 303] {
            server.resetRecords()
            let landed = landing(value(of: send(TestRequest("/moved/\(code)", method: .post, query: .json, params: ["k": "v"]))))
            XCTAssertEqual(landed, ["method": "GET", "body": ""], "\(code)")
        }
    }

    #if canImport(FoundationNetworking)
    /// swift-corelibs-foundation keeps any method but a POST through a 301: its body goes with it.
    func testMovedPutKeepsItsBody() {
        let landed = landing(value(of: send(TestRequest("/moved/301", method: .put, query: .json, params: ["k": "v"]))))
        XCTAssertEqual(landed, ["method": "PUT", "body": #"{"k":"v"}"#])
    }
    #endif

    /// A loop of 307s with a body ends as URLSession ends any loop: too many redirects,
    /// after a bounded number of requests.
    func testRedirectLoopWithABodyEndsWithTooManyRedirects() {
        server.route("/loop") { _ in .status(307, headers: ["Location": "/loop"]) }
        let error = failure(of: send(TestRequest("/loop", method: .post, query: .json, params: ["k": "v"])))
        XCTAssertEqual(error?.kind, .transport, "\(String(describing: error))")
        XCTAssertEqual(error?.urlError?.code, .httpTooManyRedirects, "\(String(describing: error))")
        let sent = server.requests(path: "/loop").count
        XCTAssertTrue((2...25).contains(sent), "\(sent) requests")
        XCTAssertTrue(server.requests(path: "/loop").allSatisfy { $0.body == Data(#"{"k":"v"}"#.utf8) }, "every hop carries the body")
    }

    /// The 20-redirect limit is per attempt, as URLSession's: 15 hops, a 503, a retry and 15
    /// hops again end with the answer, not with too many redirects.
    func testTheRedirectLimitCountsTheHopsOfOneAttempt() {
        let landings = Protected(0)
        server.route(prefix: "/hop/") { request in
            let n = Int(request.path.dropFirst("/hop/".count)) ?? 0
            if n < 15 { return .status(307, headers: ["Location": "/hop/\(n + 1)"]) }
            return landings.write { $0 += 1; return $0 } == 1 ? .status(503) : .json(#"{"ok": true}"#)
        }
        let host = makeHost()
        host.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: 0.01, jitter: 0)
        let result = send(TestRequest("/hop/0", method: .put, query: .json, params: ["k": "v"]), host: host)
        XCTAssertNotNil(value(of: result), "the second attempt's answer")
        XCTAssertEqual(landings.read { $0 }, 2, "two attempts, 15 hops each")
        XCTAssertEqual(server.requests(path: "/hop/0").count, 2)
    }

    /// The host's redirectHandler still decides: a refusal ends with the 307, nothing reaches the target.
    func testRedirectHandlerRefusalEndsWithThe307() {
        let host = makeHost()
        host.redirectHandler = { _, _ in nil }
        let error = failure(of: send(TestRequest("/moved/307", method: .post, query: .json, params: ["k": "v"]), host: host))
        XCTAssertEqual(error?.statusCode, 307)
        XCTAssertEqual(server.requests(path: "/target").count, 0)
    }

    /// A body stream set by an interceptor cannot be read a second time: where the platform
    /// would send the redirect empty (Linux), the request fails with a typed error and the
    /// target receives nothing; where it keeps the body (Apple), it arrives.
    func testABodyStreamThatCannotBeSentAgainIsNeverSentEmpty() {
        let host = makeHost()
        host.interceptors = [ClosureInterceptor(adapt: { request, _ in
            var streamed = request
            streamed.httpBodyStream = InputStream(data: Data("streamed".utf8))
            return streamed
        })]
        let result = send(TestRequest("/moved/307", method: .post, timeout: 30.5), host: host)
        #if canImport(FoundationNetworking)
        let error = failure(of: result)
        XCTAssertEqual(error?.kind, .invalidRequest, "\(String(describing: error))")
        XCTAssertEqual(error?.statusCode, 307)
        XCTAssertTrue(error?.message?.contains("stream") == true, "\(String(describing: error?.message))")
        XCTAssertEqual(server.requests(path: "/target").count, 0, "never an empty POST")
        #else
        XCTAssertEqual(landing(value(of: result))?["body"], "streamed")
        #endif
    }

    /// The attempt's clock runs across the hops: a follow-up that stalls times out, and
    /// a cancellation during the follow-up is reported once.
    func testTimeoutAndCancellationReachTheFollowUp() {
        server.route("/to-stall") { _ in .status(307, headers: ["Location": "/stall-headers"]) }
        server.route("/to-delay") { _ in .status(307, headers: ["Location": "/delay/3000"]) }
        let started = Date()
        let timedOut = failure(of: send(TestRequest("/to-stall", method: .post, query: .json, params: ["k": "v"], timeout: 0.5)))
        XCTAssertEqual(timedOut?.isTimeout, true, "\(String(describing: timedOut))")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertEqual(server.requests(path: "/stall-headers").first?.body, Data(#"{"k":"v"}"#.utf8))

        let host = makeHost()
        let service = EasyNetworkService(host)
        let calls = Collector<NetworkError>()
        let done = expectation(description: "cancelled")
        service.request(TestRequest("/to-delay", method: .post, query: .json, params: ["k": "v"]), success: { _ in
            XCTFail("must be cancelled")
            done.fulfill()
        }, failure: { error in
            calls.append(error)
            done.fulfill()
        })
        waitForRequests(path: "/delay/3000", count: 1)
        service.cancel()
        wait(for: [done], timeout: 5)
        RunLoop.current.run(until: Date().addingTimeInterval(0.1))
        XCTAssertEqual(calls.values.map(\.isCancelled), [true])
    }
}

/// A multipart POST to the 308 route.
private struct MovedUpload: BaseAPIRequest {
    let form: MultipartFormData
    var api: String { "/moved/308" }
    var method: NetworkService.Method { .post }
    var multipartBody: MultipartFormData? { form }
}
