import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class ResponseHandlingTests: ServerTestCase {
    func testWholeTwoHundredRangeIsAcceptedIncluding299() {
        server.route(nil, "/s299") { _ in .json(#"{"ok": 299}"#, status: 299) }
        server.route(nil, "/s201") { _ in .json(#"{"ok": 201}"#, status: 201) }
        XCTAssertEqual((value(of: send(TestRequest("/s299"))) as? [String: Any])?["ok"] as? Int, 299)
        XCTAssertEqual((value(of: send(TestRequest("/s201"))) as? [String: Any])?["ok"] as? Int, 201)
    }

    func testStatusErrorsCarryCodeBodyAndServerMessage() {
        for code in [400, 404, 409, 500, 503] {
            let error = failure(of: send(TestRequest("/status/\(code)", params: ["message": "boom \(code)"])))
            XCTAssertEqual(error?.kind, .unacceptableStatus)
            XCTAssertEqual(error?.statusCode, code)
            XCTAssertEqual(error?.message, "boom \(code)")
            XCTAssertNotNil(error?.data)
            XCTAssertTrue(error?.localizedDescription.contains("\(code)") ?? false)
        }
        let plain = failure(of: send(TestRequest("/nowhere")))
        XCTAssertEqual(plain?.statusCode, 404)
        XCTAssertEqual(plain?.message, "not found")
    }

    func testAcceptableStatusCodesAreConfigurable() {
        let host = makeHost()
        host.acceptableStatusCodes = Set(200..<300).union([404])
        XCTAssertNotNil(value(of: send(TestRequest("/status/404"), host: host)))
    }

    func testEmptyBodiesDecodeToNil() {
        let noContent = send(TestRequest("/no-content"))
        XCTAssertNil(value(of: noContent) ?? nil)
        let head = send(TestRequest("/echo", method: .head))
        XCTAssertNil(value(of: head) ?? nil)
    }

    func testMalformedJSONIsADecodingErrorWithSnippet() {
        let error = failure(of: send(TestRequest("/malformed-json")))
        XCTAssertEqual(error?.kind, .decoding)
        XCTAssertEqual(error?.statusCode, 200)
        XCTAssertTrue(error?.message?.contains(#"{"broken": [1, 2"#) ?? false, error?.message ?? "")
    }

    func testDecodingErrorsNameTheTypeThePathAndQuoteTheBody() throws {
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1/diagnostics"))
        let http = try XCTUnwrap(HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil))
        func message<T: Decodable>(_ type: T.Type, _ body: String) -> String {
            let response = NetworkResponse(request: URLRequest(url: url), httpResponse: http, data: Data(body.utf8))
            do {
                _ = try response.decode(type)
                return "decoded"
            } catch {
                return (error as? NetworkError)?.message ?? "\(error)"
            }
        }
        XCTAssertEqual(message(Product.self, #"{"id": 1}"#), #"cannot decode Product: missing key 'name' at the top level Body: {"id": 1}"#)
        let mismatch = message([Product].self, #"[{"id": 1, "name": "a"}, {"id": "x", "name": "b"}]"#)
        XCTAssertTrue(mismatch.hasPrefix("cannot decode Array<Product>: expected Int at [1].id: "), mismatch)
        XCTAssertTrue(mismatch.hasSuffix(#" Body: [{"id": 1, "name": "a"}, {"id": "x", "name": "b"}]"#), mismatch)
        let long = "[" + String(repeating: "1,", count: 200) + "\"x\"]"
        let quoted = message([Int].self, long)
        XCTAssertTrue(quoted.hasPrefix("cannot decode Array<Int>: expected Int at [200]: "), quoted)
        XCTAssertTrue(quoted.hasSuffix(" Body: " + long.prefix(200) + "…"), quoted)
        let empty = message(Product.self, "")
        XCTAssertTrue(empty.hasPrefix("cannot decode Product: corrupted data at the top level: "), empty)
        XCTAssertFalse(empty.contains("Body:"), empty)
    }

    func testAMapperErrorIsADecodingErrorInItsOwnWords() {
        server.route("GET", "/list") { _ in .json("[1]") }
        let op = RequestOperation(request: TestRequest("/list"), configuration: makeHost(), mapper: ProductMapper.self)
        let done = expectation(description: "mapped")
        op.completion = { _ in done.fulfill() }
        NetworkQueue().addOperation(op)
        wait(for: [done], timeout: 5)
        guard case .failure(let error)? = op.result else { return XCTFail("must fail") }
        XCTAssertEqual(error.kind, .decoding)
        XCTAssertEqual(error.message, "The response does not have the expected shape. Body: [1]")
    }

    func testClosedAndResetConnectionsAreTransportErrors() {
        for path in ["/close", "/reset"] {
            let error = failure(of: send(TestRequest(path)))
            XCTAssertEqual(error?.kind, .transport, path)
            XCTAssertNotNil(error?.urlError, path)
        }
    }

    func testRefusedConnectionIsATransportError() throws {
        let host = makeHost()
        server.stop()
        let error = failure(of: send(TestRequest("/echo"), host: host))
        XCTAssertEqual(error?.kind, .transport)
        XCTAssertNotNil(error?.urlError)
    }

    func testTimeoutIsATransportTimeout() {
        let started = Date()
        let error = failure(of: send(TestRequest("/delay/3000", timeout: 1)))
        XCTAssertEqual(error?.kind, .transport)
        XCTAssertTrue(error?.isTimeout ?? false, "\(String(describing: error))")
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.9)
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

    func testUnconfiguredHostFailsWithNotConfigured() {
        let host = HostConfiguration(baseURL: nil)
        host.callbackQueue = callbackQueue
        let error = failure(of: send(TestRequest("/echo"), host: host))
        XCTAssertEqual(error?.kind, .notConfigured)
        XCTAssertTrue(error?.localizedDescription.contains("base URL") ?? false)
    }

    func testUnconfiguredSharedHostFailsWithNotConfigured() {
        let saved = HostConfiguration.shared.baseURL
        HostConfiguration.shared.baseURL = nil
        defer { HostConfiguration.shared.baseURL = saved }
        let error = failure(of: send(TestRequest("/echo"), host: .shared))
        XCTAssertEqual(error?.kind, .notConfigured)
    }

    func testInvalidBaseURLStringDoesNotCrashAndIsNamedInTheError() {
        let host = makeHost()
        for bad in ["", "not a url", "http://", "://nohost", "ht tp://x y"] {
            XCTAssertFalse(host.setBaseURL(string: bad), bad)
            let error = failure(of: send(TestRequest("/echo"), host: host))
            XCTAssertEqual(error?.kind, .invalidRequest, bad)
            XCTAssertTrue(error?.localizedDescription.contains("'\(bad)'") ?? false, error?.localizedDescription ?? "")
        }
        XCTAssertTrue(host.setBaseURL(string: server.baseURL.absoluteString))
        XCTAssertNotNil(value(of: send(TestRequest("/echo"), host: host)))
    }

    func testErrorBridgesToNSErrorWithStableDomainAndCodes() {
        let error = failure(of: send(TestRequest("/status/418")))
        let nsError = error.map { $0 as NSError }
        XCTAssertEqual(nsError?.domain, "EasyNetwork.NetworkError")
        XCTAssertEqual(nsError?.code, 4)
        XCTAssertEqual(nsError?.userInfo["statusCode"] as? Int, 418)
        XCTAssertEqual(NetworkError.Kind.allCases.map(\.rawValue), [1, 2, 3, 4, 5, 6, 7, 8, 9])
        for kind in NetworkError.Kind.allCases {
            let text = NetworkError(kind: kind).localizedDescription
            XCTAssertFalse(text.isEmpty)
            XCTAssertFalse(text.contains("EasyNetwork.NetworkError error"), text)
        }
        let transport = NetworkError(kind: .transport, underlyingError: URLError(.notConnectedToInternet)) as NSError
        XCTAssertEqual((transport.userInfo[NSUnderlyingErrorKey] as? NSError)?.code, URLError.notConnectedToInternet.rawValue)
    }

    func testLargeBodyArrivesIntact() {
        let host = makeHost()
        let done = expectation(description: "large")
        let op = RequestOperation<Data>(request: TestRequest("/large/3000000"), configuration: host) { $0.data }
        op.success = { data in
            XCTAssertEqual(data.count, 3_000_000)
            XCTAssertTrue(data.enumerated().allSatisfy { $0.element == UInt8($0.offset % 251) })
            done.fulfill()
        }
        NetworkQueue(maxConcurrentOperationCount: 1).addOperation(op)
        wait(for: [done], timeout: 20)
    }

    func testSlowChunkedBodyArrivesWhole() {
        let result = send(TestRequest("/slow-body", params: ["chunks": 4, "interval_ms": 50]))
        XCTAssertNotNil(value(of: result) as? [Any])
    }
}

extension ResponseHandlingTests {
    /// A `null` where a value must be is named as such, with the key path.
    func testANullValueIsNamedWithItsPath() throws {
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1/diagnostics"))
        let http = try XCTUnwrap(HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil))
        let response = NetworkResponse(request: URLRequest(url: url), httpResponse: http, data: Data(#"{"id": null, "name": "a"}"#.utf8))
        XCTAssertThrowsError(try response.decode(Product.self)) { error in
            let message = (error as? NetworkError)?.message ?? ""
            XCTAssertTrue(message.hasPrefix("cannot decode Product: no value of type Int at .id: "), message)
        }
    }
}
