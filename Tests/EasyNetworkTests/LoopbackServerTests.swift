import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest

/// `LoopbackServer(port:)`: a fixed port, for a server other programs are told about
/// (the demo's `--serve`, which the README's quick start talks to).
final class LoopbackServerTests: XCTestCase {
    func testAFixedPortServesAndATakenPortThrows() throws {
        let first = try LoopbackServer()
        let port = first.port
        XCTAssertThrowsError(try LoopbackServer(port: port), "the port is taken") { error in
            guard case LoopbackServerError.bind? = error as? LoopbackServerError else {
                return XCTFail("expected a bind error, got \(error)")
            }
        }
        first.stop()

        let fixed = try LoopbackServer(port: port)
        defer { fixed.stop() }
        XCTAssertEqual(fixed.port, port)
        XCTAssertEqual(fixed.baseURL.absoluteString, "http://127.0.0.1:\(port)")
        fixed.route("GET", "/hello") { _ in .json(#"{"hello": "world"}"#) }
        let host = HostConfiguration(baseURL: fixed.baseURL)
        host.callbackQueue = DispatchQueue(label: "LoopbackServerTests")
        let op = RequestOperation(request: TestRequest("/hello"), configuration: host, responseDecoder: .json)
        NetworkQueue().addOperation(op)
        waitUntilFinished(op)
        XCTAssertEqual((try op.result?.get() as? [String: String]), ["hello": "world"])
    }
}
