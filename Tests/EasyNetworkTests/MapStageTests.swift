import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``MapStage``: the caller's mapping of a response, and its errors.
final class MapStageTests: ServerTestCase {
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
        XCTAssertEqual(error?.message, "the body is not valid JSON. Body: 16 bytes (not quoted)")
        XCTAssertEqual(error?.bodySnippet, #"{"broken": [1, 2"#)
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
        XCTAssertEqual(error.message, "The response does not have the expected shape. Body: 3 bytes (not quoted)")
        XCTAssertEqual(error.bodySnippet, "[1]")
    }
}
