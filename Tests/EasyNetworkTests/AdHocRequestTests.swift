import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `AdHocRequest` (issue 29): a one-off call without a request type, through the same
/// pipeline as a declared request: every encoding, every result kind, both the `async`
/// and the completion forms, the host's headers, interceptors, validation and error handler.
final class AdHocRequestTests: ServerTestCase {
    private let queue = NetworkQueue(maxConcurrentOperationCount: 4)

    /// What the loopback server's `/echo` saw.
    private struct Echo: Decodable, Sendable {
        let method: String
        let path: String
        let query: String?
        let headers: [String: String]
        let body: String
    }

    private struct Flags: Decodable, Sendable, Equatable {
        let newCheckout: Bool
    }

    /// Adds a header to every request of its host.
    private struct Stamp: RequestInterceptor {
        func adapt(_ urlRequest: URLRequest, context: RequestContext, completion: @escaping @Sendable (Result<URLRequest, Error>) -> Void) {
            var adapted = urlRequest
            adapted.setValue("stamped", forHTTPHeaderField: "X-Stamp")
            completion(.success(adapted))
        }
    }

    private func echo(_ request: AdHocRequest, host: HostConfiguration? = nil) async throws -> Echo {
        try await queue.send(request, as: Echo.self, configuration: host ?? makeHost())
    }

    // MARK: Encodings

    func testGetPutsItsParametersInTheQuery() async throws {
        let seen = try await echo(.get("/echo", query: ["v": "2", "q": "a b"]))
        XCTAssertEqual(seen.method, "GET")
        XCTAssertEqual(seen.path, "/echo")
        XCTAssertEqual(seen.query, "q=a%20b&v=2")
        XCTAssertEqual(seen.body, "")
    }

    func testPostSendsAJSONBody() async throws {
        let seen = try await echo(.post("/echo", json: ["n": 1, "name": "ana"]))
        XCTAssertEqual(seen.method, "POST")
        XCTAssertEqual(seen.headers["content-type"], "application/json")
        XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(seen.body.utf8)) as? NSDictionary, ["n": 1, "name": "ana"])
        XCTAssertNil(seen.query)
    }

    func testAnyMethodWithAFormOrAQueryOrAJSONEncoding() async throws {
        let form = try await echo(AdHocRequest(.put, "/echo", params: ["a": "1 2", "b": true], encoding: .form))
        XCTAssertEqual(form.method, "PUT")
        XCTAssertEqual(form.body, "a=1%202&b=true")
        XCTAssertEqual(form.headers["content-type"], "application/x-www-form-urlencoded; charset=utf-8")
        let path = try await echo(AdHocRequest(.delete, "/echo", params: ["id": 7]))
        XCTAssertEqual(path.method, "DELETE")
        XCTAssertEqual(path.query, "id=7")
        let json = try await echo(AdHocRequest(.patch, "/echo", params: ["id": 7], encoding: .json))
        XCTAssertEqual(json.method, "PATCH")
        XCTAssertEqual(json.body, #"{"id":7}"#)
    }

    func testAnEncodableBodyUsesTheHostsEncoderAndParamsGoToTheQuery() async throws {
        struct Stamped: Encodable { let at: Date }
        let seen = try await echo(AdHocRequest(.post, "/echo", params: ["notify": true], body: Stamped(at: Date(timeIntervalSince1970: 0))))
        XCTAssertEqual(seen.body, #"{"at":"1970-01-01T00:00:00Z"}"#)
        XCTAssertEqual(seen.query, "notify=true")
        XCTAssertEqual(seen.headers["content-type"], "application/json")
    }

    func testAMultipartBodyCarriesTheParamsAsFields() async throws {
        var form = MultipartFormData()
        form.append(Data("hello".utf8), name: "file", fileName: "a.txt", mimeType: "text/plain")
        let seen = try await echo(AdHocRequest(.post, "/echo", params: ["caption": "Holiday"], multipart: form))
        XCTAssertTrue(seen.headers["content-type"]?.hasPrefix("multipart/form-data; boundary=") ?? false, seen.headers["content-type"] ?? "")
        XCTAssertTrue(seen.body.contains("name=\"caption\"\r\n\r\nHoliday\r\n"), seen.body)
        XCTAssertTrue(seen.body.contains("filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n"), seen.body)
    }

    func testAValueJSONCannotHoldFailsBeforeAnythingIsSent() async {
        do {
            try await queue.send(.post("/echo", json: ["value": Double.nan]), configuration: makeHost())
            XCTFail("sent")
        } catch let error as NetworkError {
            XCTAssertEqual(error.kind, .encoding)
        } catch {
            XCTFail("\(error)")
        }
        XCTAssertEqual(server.requests(path: "/echo").count, 0)
    }

    // MARK: Results

    func testEveryResultKind() async throws {
        server.route("GET", "/flags") { _ in .json(#"{"newCheckout": true}"#) }
        server.route("GET", "/text") { _ in .status(200, headers: ["Content-Type": "text/plain; charset=iso-8859-1"], body: Data([0x63, 0x61, 0x66, 0xE9])) }
        let host = makeHost()
        let flags = try await queue.send(.get("/flags", query: ["v": "2"]), as: Flags.self, configuration: host)
        XCTAssertEqual(flags, Flags(newCheckout: true))
        let data = try await queue.send(.get("/flags"), as: Data.self, configuration: host)
        XCTAssertEqual(data, Data(#"{"newCheckout": true}"#.utf8), "Data is the raw body, not a Decodable")
        let text = try await queue.send(.get("/text"), as: String.self, configuration: host)
        XCTAssertEqual(text, "café", "String is the body in its charset, not a JSON string")
        try await queue.send(.get("/flags"), configuration: host)  // Void: any body
        XCTAssertEqual(server.requests(path: "/flags").count, 3)
        // Any other result, such as the JSON as `Any?`: the request in a RequestOperation.
        let json = RequestOperation(request: AdHocRequest.get("/flags"), configuration: host, responseDecoder: .json)
        let done = expectation(description: "json")
        json.completion = { _ in done.fulfill() }
        queue.addOperation(json)
        await fulfillment(of: [done], timeout: 5)
        XCTAssertEqual(try json.result?.get() as? NSDictionary, ["newCheckout": true])
    }

    func testTheHostsEnvelopeAppliesToDecodableAndVoidResultsOnly() async throws {
        server.route("GET", "/wrapped") { _ in .json(#"{"code": 0, "data": {"newCheckout": false}}"#) }
        server.route("GET", "/refused") { _ in .json(#"{"code": 8888, "msg": "not now"}"#) }
        let host = makeHost()
        host.envelope = .codeEquals(0)
        let flags = try await queue.send(.get("/wrapped"), as: Flags.self, configuration: host)
        XCTAssertEqual(flags, Flags(newCheckout: false))
        let raw = try await queue.send(.get("/wrapped"), as: String.self, configuration: host)
        XCTAssertEqual(raw, #"{"code": 0, "data": {"newCheckout": false}}"#)
        do {
            try await queue.send(.get("/refused"), configuration: host)
            XCTFail("the envelope said failure")
        } catch let error as NetworkError {
            XCTAssertEqual(error.kind, .business)
            XCTAssertEqual(error.serverMessage, "not now")
        }
    }

    func testTheCompletionForms() throws {
        server.route("GET", "/flags") { _ in .json(#"{"newCheckout": true}"#) }
        let host = makeHost()
        let results = Collector<String>()
        let done = expectation(description: "both")
        done.expectedFulfillmentCount = 2
        let typed = queue.send(.get("/flags"), as: Flags.self, configuration: host) { result in
            results.append("flags \((try? result.get())?.newCheckout == true)")
            done.fulfill()
        }
        let void = queue.send(.post("/echo", json: ["n": 1]), configuration: host) { result in
            results.append("void \((try? result.get()) != nil)")
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(Set(results.values), ["flags true", "void true"])
        XCTAssertEqual(results.count, 2, "one callback each")
        waitUntilFinished(typed)
        waitUntilFinished(void)
    }

    // MARK: The same pipeline as a declared request

    func testTheHostsHeadersInterceptorsValidationAndErrorHandlerApply() async throws {
        let host = makeHost()
        host.defaultHeaders = ["X-SDK-Version": "1.2", "X-Both": "host"]
        host.interceptors = [Stamp()]
        let seen = try await echo(.get("/echo", headers: ["X-Both": "request"]), host: host)
        XCTAssertEqual(seen.headers["x-sdk-version"], "1.2")
        XCTAssertEqual(seen.headers["x-both"], "request", "the request's own header wins")
        XCTAssertEqual(seen.headers["x-stamp"], "stamped")

        let handled = Collector<Int>()
        host.errorHandler = { _, error in handled.append(error.statusCode ?? 0) }
        do {
            _ = try await queue.send(.get("/status/404"), as: Flags.self, configuration: host)
            XCTFail("404 accepted")
        } catch let error as NetworkError {
            XCTAssertEqual(error.kind, .unacceptableStatus)
            XCTAssertEqual(error.statusCode, 404)
        }
        XCTAssertEqual(handled.values, [404], "the host's error handler heard it, once")
    }

    func testCancellingTheTaskCancelsTheRequest() async throws {
        let host = makeHost(), queue = self.queue
        let task = Task { try await queue.send(.get("/delay/5000"), as: Data.self, configuration: host) }
        let deadline = Date().addingTimeInterval(5)
        while server.requests(path: "/delay/5000").isEmpty, Date() < deadline {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("not cancelled")
        } catch let error as NetworkError {
            XCTAssertTrue(error.isCancelled, "\(error)")
        }
    }
}
