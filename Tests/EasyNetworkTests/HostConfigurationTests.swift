import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest

final class HostConfigurationTests: ServerTestCase {
    func testTwoHostsShareNothing() throws {
        let otherServer = try LoopbackServer()
        defer { otherServer.stop() }
        let first = makeHost()
        first.defaultHeaders = ["X-SDK": "first"]
        let second = HostConfiguration(baseURL: otherServer.baseURL)
        second.callbackQueue = callbackQueue
        second.defaultHeaders = ["X-SDK": "second"]

        _ = send(TestRequest("/echo"), host: first)
        _ = send(TestRequest("/echo"), host: second)
        XCTAssertEqual(server.requests.map { $0.header("X-SDK") }, ["first"])
        XCTAssertEqual(otherServer.requests.map { $0.header("X-SDK") }, ["second"])
    }

    func testOneHostUsesOneSessionAndKeepsConnectionsAlive() {
        let host = makeHost()
        for _ in 0..<10 { _ = send(TestRequest("/echo"), host: host) }
        XCTAssertEqual(server.requests.count, 10)
        XCTAssertEqual(Set(server.requests.map(\.connectionID)).count, 1, "sequential requests reuse one connection of one session")
        let second = makeHost()
        _ = send(TestRequest("/echo"), host: second)
        XCTAssertEqual(server.acceptedConnections, 2, "a second host has its own session")
    }

    func testHostIsReleasedWhenNothingUsesIt() {
        weak var weakHost: HostConfiguration?
        do {
            let host = makeHost()
            weakHost = host
            XCTAssertNotNil(value(of: send(TestRequest("/echo"), host: host)))
        }
        let deadline = Date().addingTimeInterval(2)
        while weakHost != nil && Date() < deadline { RunLoop.current.run(until: Date().addingTimeInterval(0.01)) }
        XCTAssertNil(weakHost, "the session must not keep its host alive")
    }

    func testSettingsAreReadableAndDefaultsAreSane() {
        let host = HostConfiguration(baseURL: nil)
        XCTAssertEqual(host.timeout, 60)
        XCTAssertEqual(host.acceptableStatusCodes, Set(200..<300))
        XCTAssertEqual(host.callbackQueue.label, DispatchQueue.main.label)
        XCTAssertTrue(host.defaultHeaders.isEmpty)
        XCTAssertTrue(HostConfiguration.shared === HostConfiguration.shared)
        XCTAssertEqual(HostConfiguration.unauthorizedOperationNotification.rawValue, "com.easynetwork.didPerformUnauthorizedOperation")
    }

    func testConcurrentSettingChangesAreSafe() {
        let host = makeHost()
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            host.defaultHeaders = ["X-I": "\(index)"]
            host.timeout = TimeInterval(10 + index % 5)
            _ = host.baseURL
            _ = host.defaultHeaders
        }
        XCTAssertEqual(host.defaultHeaders.count, 1)
    }

    func testSettingChangesReachTheNextRequest() throws {
        let otherServer = try LoopbackServer()
        defer { otherServer.stop() }
        let host = makeHost()
        host.defaultHeaders = ["X-Step": "1"]
        _ = send(TestRequest("/echo"), host: host)
        host.defaultHeaders = ["X-Step": "2"]
        _ = send(TestRequest("/echo"), host: host)
        XCTAssertEqual(server.requests.map { $0.header("X-Step") }, ["1", "2"])

        // The same api on a new base URL goes to the new server, not to a URL
        // remembered for the old base.
        host.baseURL = otherServer.baseURL
        _ = send(TestRequest("/echo"), host: host)
        XCTAssertEqual(server.requests.count, 2)
        XCTAssertEqual(otherServer.requests.map(\.path), ["/echo"])
        XCTAssertTrue(host.setBaseURL(string: server.baseURL.absoluteString + "/v2"))
        _ = send(TestRequest("/echo"), host: host)
        XCTAssertEqual(server.requests.last?.path, "/v2/echo")
    }

    func testRepeatedRequestsKeepTheirOwnQueries() {
        let host = makeHost()
        for page in [1, 2, 1, 3] {
            _ = send(TestRequest("/echo", params: ["page": page]), host: host)
            _ = send(TestRequest("/echo"), host: host)
        }
        XCTAssertEqual(server.requests.map(\.query), ["page=1", nil, "page=2", nil, "page=1", nil, "page=3", nil])

        // An api that spells another request's api and query is still its own URL.
        _ = send(TestRequest("/echo", params: ["a": 1]), host: host)
        _ = send(TestRequest("/echoa=1"), host: host)
        XCTAssertEqual(server.requests.suffix(2).map(\.path), ["/echo", "/echoa=1"])
        XCTAssertEqual(server.requests.suffix(2).map(\.query), ["a=1", nil])
    }
}
