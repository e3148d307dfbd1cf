import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class ResponseHandlingTests: ServerTestCase {

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
        XCTAssertEqual(message(Product.self, #"{"id": 1}"#), #"cannot decode Product: missing key 'name' at the top level. Body: {"id": 1}"#)
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
