@testable import EasyNetwork
import Foundation
import XCTest

/// The one URL composition of `URLRequestBuilder.url(base:api:query:)`: a base URL with an
/// api path, and an absolute URL (no api) with the parameters added to its query.
final class URLRequestBuilderTests: XCTestCase {
    private func compose(_ base: String, _ api: String?, _ query: [String: Any]?) throws -> String {
        let url = try XCTUnwrap(URL(string: base))
        return try URLRequestBuilder.url(base: url, api: api, query: query).absoluteString
    }

    func testAnApiPathJoinsTheBasePathWithOneSlashAndDropsTheBaseFragment() throws {
        let cases: [(String, String, [String: Any]?, String)] = [
            ("https://h.example/v1", "/users", nil, "https://h.example/v1/users"),
            ("https://h.example/v1/", "users", nil, "https://h.example/v1/users"),
            ("https://h.example/v1/", "//users", ["a": 1], "https://h.example/v1/users?a=1"),
            ("https://h.example/v1?key=k#top", "/users?active=1", ["q": "x y"], "https://h.example/v1/users?key=k&active=1&q=x%20y"),
            ("https://h.example/v1/", "?only=1", nil, "https://h.example/v1/?only=1"),
            ("https://h.example/v1", "", ["a": "b"], "https://h.example/v1?a=b"),
            ("http://[::1]:8080/v1", "/p q", nil, "http://[::1]:8080/v1/p%20q"),
        ]
        for (base, api, query, expected) in cases {
            XCTAssertEqual(try compose(base, api, query), expected, "\(base) + \(api)")
        }
    }

    func testAnAbsoluteURLKeepsItsQueryAndFragmentAndAddsTheParameters() throws {
        XCTAssertEqual(try compose("https://h.example/p", nil, ["a": 1]), "https://h.example/p?a=1")
        XCTAssertEqual(try compose("https://h.example/p?x=1#frag", nil, ["a": 1]), "https://h.example/p?x=1&a=1#frag")
        XCTAssertEqual(try compose("http://[::1]:8080/p#f", nil, ["k": "v w"]), "http://[::1]:8080/p?k=v%20w#f")
        XCTAssertEqual(try compose("https://h.example/p?x=1#frag", nil, nil), "https://h.example/p?x=1#frag", "nothing to add: the URL as it is")
    }

    func testAUrlWithoutASchemeIsATypedError() {
        XCTAssertThrowsError(try compose("relative/path", "/users", nil)) { error in
            XCTAssertEqual((error as? NetworkError)?.kind, .invalidRequest)
        }
    }
}
