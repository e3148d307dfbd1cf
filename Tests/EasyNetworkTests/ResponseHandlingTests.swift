import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class ResponseHandlingTests: ServerTestCase {

    func testDecodingErrorsNameTheTypeThePathAndTheSizeOfTheBodyWhichTheSnippetQuotes() throws {
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1/diagnostics"))
        let http = try XCTUnwrap(HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil))
        func failure<T: Decodable>(_ type: T.Type, _ body: String) -> (message: String, snippet: String?) {
            let response = NetworkResponse(request: URLRequest(url: url), httpResponse: http, data: Data(body.utf8))
            do {
                _ = try response.decode(type)
                return ("decoded", nil)
            } catch {
                return ((error as? NetworkError)?.message ?? "\(error)", (error as? NetworkError)?.bodySnippet)
            }
        }
        let missing = failure(Product.self, #"{"id": 1}"#)
        XCTAssertEqual(missing.message, "cannot decode Product: missing key 'name' at the top level. Body: 9 bytes (not quoted)")
        XCTAssertEqual(missing.snippet, #"{"id": 1}"#)
        let mismatch = failure([Product].self, #"[{"id": 1, "name": "a"}, {"id": "x", "name": "b"}]"#)
        XCTAssertTrue(mismatch.message.hasPrefix("cannot decode Array<Product>: expected Int at [1].id: "), mismatch.message)
        XCTAssertTrue(mismatch.message.hasSuffix(" Body: 50 bytes (not quoted)"), mismatch.message)
        XCTAssertEqual(mismatch.snippet, #"[{"id": 1, "name": "a"}, {"id": "x", "name": "b"}]"#)
        let long = "[" + String(repeating: "1,", count: 200) + "\"x\"]"
        let cut = failure([Int].self, long)
        XCTAssertTrue(cut.message.hasPrefix("cannot decode Array<Int>: expected Int at [200]: "), cut.message)
        XCTAssertTrue(cut.message.hasSuffix(" Body: 405 bytes (not quoted)"), cut.message)
        XCTAssertEqual(cut.snippet, long.prefix(200) + "…")
        let oneByte = failure(Product.self, "x")
        XCTAssertEqual(oneByte.message, "cannot decode Product: corrupted data at the top level (not JSON, or a value the type refuses). Body: 1 byte (not quoted)")
        let empty = failure(Product.self, "")
        XCTAssertEqual(empty.message, "cannot decode Product: corrupted data at the top level (not JSON, or a value the type refuses)")
        XCTAssertNil(empty.snippet)
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
