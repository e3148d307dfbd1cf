import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest

// `BaseAPIRequest` has the same defaults as `APIRequest`: only `api` is required.

/// The request issue 20 met: "does not conform" before the defaults.
private final class ProfileRequest: BaseAPIRequest {
    var api: String { "/echo" }
}

/// A seed-style request that states every member, as seed code does.
private final class FullSeedRequest: BaseAPIRequest {
    var api: String { "/echo" }
    var method: NetworkService.Method { .post }
    var query: NetworkService.QueryType { .json }
    var params: [String: Any]? { ["a": 1] }
    var headers: [String: String]? { ["X-Seed": "1"] }
}

/// A class that conforms to both protocols, each default in reach twice (from
/// `extension BaseAPIRequest` and `extension APIRequest`): it must compile without
/// ambiguity and read the same values.
private final class BothProtocols: BaseAPIRequest, APIRequest {
    typealias Response = Data
    var api: String { "/echo" }
}

/// A struct conforming to `APIRequest` only, overriding one default.
private struct TypedPost: APIRequest {
    typealias Response = Data
    var api: String { "/echo" }
    var method: NetworkService.Method { .post }
}

final class BaseAPIRequestTests: ServerTestCase {
    func testARequestWithOnlyAnApiIsAGetOfThatPathWithNothingElse() throws {
        let request = ProfileRequest()
        XCTAssertEqual(request.method, .get)
        XCTAssertEqual(request.query, .path)
        XCTAssertNil(request.params)
        XCTAssertNil(request.headers)

        let result = send(request)
        XCTAssertNotNil(value(of: result))
        let recorded = try XCTUnwrap(server.requests(path: "/echo").first)
        XCTAssertEqual(recorded.method, "GET")
        XCTAssertNil(recorded.query)
        XCTAssertTrue(recorded.body.isEmpty)
    }

    func testStatedMembersStillWinOverTheDefaults() throws {
        _ = send(FullSeedRequest())
        let recorded = try XCTUnwrap(server.requests(path: "/echo").first)
        XCTAssertEqual(recorded.method, "POST")
        XCTAssertEqual(recorded.header("X-Seed"), "1")
        XCTAssertEqual(recorded.jsonBody() as? [String: Int], ["a": 1])
    }

    func testBothProtocolsReadTheSameDefaultsThroughEveryPath() {
        let both = BothProtocols()
        // Concrete, through each protocol as an existential, and through generics.
        XCTAssertEqual(both.method, .get)
        XCTAssertEqual(both.query, .path)
        XCTAssertNil(both.params)
        XCTAssertNil(both.headers)
        let base: any BaseAPIRequest = both
        XCTAssertEqual(base.method, .get)
        XCTAssertEqual(base.query, .path)
        let typed: any APIRequest = both
        XCTAssertEqual(typed.method, .get)
        XCTAssertEqual(Self.method(ofBase: both), .get)
        XCTAssertEqual(Self.method(ofTyped: both), .get)
        XCTAssertEqual(Self.method(ofTyped: TypedPost()), .post)
        XCTAssertEqual(Self.method(ofBase: TypedPost()), .post, "an override is the witness for both protocols")
    }

    private static func method(ofBase request: some BaseAPIRequest) -> NetworkService.Method { request.method }
    private static func method(ofTyped request: some APIRequest) -> NetworkService.Method { request.method }
}
