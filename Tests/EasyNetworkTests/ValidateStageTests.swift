import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``ValidateStage``: status codes, transport errors and what a response must be to count as one.
final class ValidateStageTests: ServerTestCase {
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
            XCTAssertEqual(error?.serverMessage, "boom \(code)")
            XCTAssertEqual(error?.message, "the server sent a message of \(String(code).count + 5) characters (not quoted)")
            XCTAssertNotNil(error?.data)
            XCTAssertTrue(error?.localizedDescription.contains("\(code)") ?? false)
        }
        let plain = failure(of: send(TestRequest("/nowhere")))
        XCTAssertEqual(plain?.statusCode, 404)
        XCTAssertEqual(plain?.serverMessage, "not found")
    }

    func testAcceptableStatusCodesAreConfigurable() {
        let host = makeHost()
        host.acceptableStatusCodes = Set(200..<300).union([404])
        XCTAssertNotNil(value(of: send(TestRequest("/status/404"), host: host)))
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
}
