import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest

final class RequestBuildingTests: ServerTestCase {
    func testQueryValuesRoundTripThroughPercentEncoding() {
        let tricky = "a b+c&d=e/f?g#h%i ü 中文 😀"
        let result = send(TestRequest("/echo", params: ["q": tricky, "plus": "+", "empty": ""]))
        XCTAssertNotNil(value(of: result))
        let recorded = server.requests(path: "/echo").first
        let items = Dictionary(uniqueKeysWithValues: (recorded?.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        XCTAssertEqual(items["q"], tricky)
        XCTAssertEqual(items["plus"], "+")
        XCTAssertEqual(items["empty"], "")
        XCTAssertFalse(recorded?.query?.contains(" ") ?? true)
        XCTAssertFalse(recorded?.query?.contains("+") ?? true, "a plus must be sent as %2B")
    }

    func testNestedParametersUseBracketsAndSortedKeys() {
        let params: [String: Any] = ["b": 1, "a": ["y": true, "x": [1, 2]], "c": [["id": 7]], "n": NSNull()]
        _ = send(TestRequest("/echo", params: params))
        _ = send(TestRequest("/echo", params: params))
        let queries = server.requests(path: "/echo").map { $0.query }
        XCTAssertEqual(queries.count, 2)
        XCTAssertEqual(queries[0], "a%5Bx%5D%5B%5D=1&a%5Bx%5D%5B%5D=2&a%5By%5D=true&b=1&c%5B%5D%5Bid%5D=7&n=")
        XCTAssertEqual(queries[0], queries[1], "the same request makes the same URL")
    }

    func testEncoderEscapesEveryReservedCharacter() {
        XCTAssertEqual(QueryStringEncoder.escape("a b+c&d=e/f?g#h"), "a%20b%2Bc%26d%3De%2Ff%3Fg%23h")
        XCTAssertEqual(QueryStringEncoder.escape("-._~"), "-._~")
        XCTAssertEqual(QueryStringEncoder().encode(["k": 1.5, "f": false]), "f=false&k=1.5")
    }

    func testApiPathIsAppendedToBasePathWithOneSlash() {
        for (base, api) in [("v1", "/users"), ("v1", "users"), ("v1/", "/users"), ("v1/", "//users")] {
            let host = makeHost(path: base)
            if base.hasSuffix("/") {
                host.baseURL = URL(string: server.baseURL.absoluteString + "/" + base)
            }
            _ = send(TestRequest(api), host: host)
        }
        let paths = server.requests.map(\.path)
        XCTAssertEqual(paths, Array(repeating: "/v1/users", count: 4))
    }

    func testApiQueryIsKeptAndParametersFollow() {
        _ = send(TestRequest("/echo?fixed=1", params: ["q": "x y"]))
        XCTAssertEqual(server.requests(path: "/echo").first?.query, "fixed=1&q=x%20y")
    }

    func testAbsoluteURLWorksWithoutBaseURL() {
        let host = HostConfiguration(baseURL: nil)
        host.callbackQueue = callbackQueue
        let url = server.baseURL.appendingPathComponent("echo")
        let result = send(TestRequest("/ignored", params: ["a": "1"], absoluteURL: url), host: host)
        XCTAssertNotNil(value(of: result))
        XCTAssertEqual(server.requests(path: "/echo").first?.query, "a=1")
    }

    func testJSONBodyIsSortedAndTyped() {
        let params: [String: Any] = ["z": 1, "a": ["nested": [1, "two", NSNull(), false]]]
        _ = send(TestRequest("/echo", method: .post, query: .json, params: params))
        let recorded = server.requests(path: "/echo").first
        XCTAssertEqual(String(decoding: recorded?.body ?? Data(), as: UTF8.self), #"{"a":{"nested":[1,"two",null,false]},"z":1}"#)
        XCTAssertEqual(recorded?.header("Content-Type"), "application/json")
        XCTAssertNil(recorded?.query)
    }

    func testValuesJSONCannotEncodeFailWithEncodingErrorAndSendNothing() {
        final class Custom {}
        let bad: [[String: Any]] = [["date": Date()], ["nan": Double.nan], ["inf": Double.infinity], ["custom": Custom()], ["deep": [["x": Float.nan]]]]
        for params in bad {
            let error = failure(of: send(TestRequest("/echo", method: .post, query: .json, params: params)))
            XCTAssertEqual(error?.kind, .encoding, "\(params)")
        }
        XCTAssertEqual(server.requests.count, 0)
    }

    func testFormBodyIsPercentEncoded() {
        _ = send(TestRequest("/echo", method: .post, query: .form, params: ["name": "a b&c", "ids": [1, 2]]))
        let recorded = server.requests(path: "/echo").first
        XCTAssertEqual(String(decoding: recorded?.body ?? Data(), as: UTF8.self), "ids%5B%5D=1&ids%5B%5D=2&name=a%20b%26c")
        XCTAssertEqual(recorded?.header("content-type"), "application/x-www-form-urlencoded; charset=utf-8")
    }

    func testGetWithJSONQueryTypeSendsParametersInURL() {
        _ = send(TestRequest("/echo", method: .get, query: .json, params: ["a": "1"]))
        let recorded = server.requests(path: "/echo").first
        XCTAssertEqual(recorded?.query, "a=1")
        XCTAssertEqual(recorded?.body.count, 0)
    }

    func testRequestHeadersWinOverHostHeadersCaseInsensitively() {
        let host = makeHost()
        host.defaultHeaders = ["X-Token": "host", "Accept": "text/plain", "X-Host-Only": "1"]
        _ = send(TestRequest("/echo", headers: ["accept": "application/json", "x-token": "request"]), host: host)
        let recorded = server.requests(path: "/echo").first
        XCTAssertEqual(recorded?.header("Accept"), "application/json")
        XCTAssertEqual(recorded?.header("X-Token"), "request")
        XCTAssertEqual(recorded?.header("X-Host-Only"), "1")
        XCTAssertEqual(recorded?.headers.filter { $0.name.lowercased() == "accept" }.count, 1)
    }

    func testQueryKeysAreInAscendingOrderAtEveryLevel() {
        let keys = ["b", "a", "B", "aa", "a0", "Z", "é", "e", "_", "10", "9", "", "ab", "A", "中", "😀", "a b"]
        var flat: [String: Int] = [:]
        for (index, key) in keys.enumerated() { flat[key] = index }
        let expected = keys.sorted().map { key in "\(QueryStringEncoder.escape(key))=\(flat[key] ?? -1)" }
        XCTAssertEqual(QueryStringEncoder().encode(flat), expected.joined(separator: "&"))
        let nested = keys.sorted().map { key in "n%5B\(QueryStringEncoder.escape(key))%5D=\(flat[key] ?? -1)" }
        XCTAssertEqual(QueryStringEncoder().encode(["n": flat]), nested.joined(separator: "&"))
    }

    func testHeaderNamesDifferingOnlyInCaseResolveInAscendingOrder() {
        // "X-Dup" < "X-dup" < "x-dup": the last one set wins, with its spelling.
        _ = send(TestRequest("/echo", headers: ["x-dup": "lower", "X-Dup": "upper", "X-dup": "mixed"]))
        let recorded = server.requests(path: "/echo").first
        XCTAssertEqual(recorded?.headers.filter { $0.name.lowercased() == "x-dup" }.map(\.value), ["lower"])
    }

    func testRequestContentTypeIsNotReplaced() {
        _ = send(TestRequest("/echo", method: .post, query: .json, params: ["a": 1], headers: ["content-type": "application/vnd.api+json"]))
        XCTAssertEqual(server.requests(path: "/echo").first?.header("Content-Type"), "application/vnd.api+json")
    }

    func testEveryMethodIsSent() {
        for method in NetworkService.Method.allCases {
            _ = send(TestRequest("/echo", method: method))
        }
        XCTAssertEqual(server.requests(path: "/echo").map(\.method), ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"])
    }

    /// URLComponents' percent-encoded setters stop the process on bad input; the
    /// builder must turn any api text into a URL or a typed error.
    func testApiTextThatIsNotAValidURLNeverCrashes() {
        let tricky = ["/a%zz", "/50%", "/x?a=b c&d=%", "/p q/ü", "/#frag", "?only=query", "", "/", "//", "/a%2Fb"]
        for api in tricky {
            _ = send(TestRequest(api, params: ["k": "v"]))
        }
        let recorded = server.requests
        XCTAssertEqual(recorded.count, tricky.count, "every api made a request")
        XCTAssertEqual(recorded[0].path, "/a%25zz")
        XCTAssertEqual(recorded[1].path, "/50%25")
        XCTAssertEqual(recorded[2].query, "a=b%20c&d=%25&k=v")
        XCTAssertEqual(recorded[3].path, "/p%20q/%C3%BC")
        XCTAssertEqual(recorded[4].path, "/%23frag")
        XCTAssertEqual(recorded[5].query, "only=query&k=v")
        XCTAssertEqual(recorded[9].path, "/a%2Fb", "an already encoded path stays as it is")
    }
}
