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

    /// `LoopbackServer(ipv6: true)` listens on `::1` only: a client that resolves
    /// `localhost` to `::1` reaches it, one that asks 127.0.0.1 does not.
    func testAnIPv6ServerListensOnTheIPv6LoopbackOnly() throws {
        let server = try LoopbackServer(ipv6: true)
        defer { server.stop() }
        XCTAssertTrue(server.isIPv6)
        XCTAssertEqual(server.baseURL.absoluteString, "http://[::1]:\(server.port)")
        server.route("GET", "/hello") { _ in .json(#"{"hello": "v6"}"#) }
        let host = HostConfiguration(baseURL: URL(string: "http://localhost:\(server.port)"))
        host.callbackQueue = DispatchQueue(label: "LoopbackServerTests")
        let op = RequestOperation(request: TestRequest("/hello"), configuration: host, responseDecoder: .json)
        NetworkQueue().addOperation(op)
        waitUntilFinished(op, timeout: 10)
        XCTAssertEqual((try op.result?.get() as? [String: String]), ["hello": "v6"])
        XCTAssertEqual(server.requests(path: "/hello").count, 1)
        XCTAssertFalse(try LoopbackServer().isIPv6)
    }
}

