@testable import EasyNetwork
import EasyNetworkEnvelopes
import EasyNetworkCache
import EasyNetworkPlugins
import EasyNetworkRetry
import EasyNetworkOrchestration
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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

    /// Issue 20: a base URL given as a `URL` (the initializer, the property) was never
    /// checked; `http://` sent a request whose `api` became the host, `ftp://` connected.
    /// Every way of giving one now applies the string setter's rule (http or https, a
    /// host), fails before anything is sent, and names what was given.
    func testEveryWayOfGivingABaseURLIsCheckedTheSameWayBeforeAnythingIsSent() throws {
        let port = server.port
        let unusable = ["http://", "ftp://127.0.0.1:\(port)", "localhost:\(port)", "file:///tmp", "https:///v1", "mailto:a@example.com"]
        for text in unusable {
            let url = try XCTUnwrap(URL(string: text), text)
            let byInit = HostConfiguration(baseURL: url)
            let byProperty = HostConfiguration(baseURL: nil)
            byProperty.baseURL = url
            let byString = HostConfiguration(baseURL: nil)
            XCTAssertFalse(byString.setBaseURL(string: text), text)
            for (way, host) in [("init", byInit), ("property", byProperty), ("string", byString)] {
                host.callbackQueue = callbackQueue
                XCTAssertNil(host.baseURL, "\(way): \(text) is not kept")
                let error = failure(of: send(TestRequest("/profile"), host: host))
                XCTAssertEqual(error?.kind, .invalidRequest, "\(way): \(text)")
                let description = error?.localizedDescription ?? ""
                XCTAssertTrue(description.contains("'\(text)' is not a usable base URL"), "\(way): \(description)")
                XCTAssertTrue(description.contains("http:// or https://"), description)
            }
        }
        XCTAssertEqual(server.acceptedConnections, 0, "nothing was sent for an unusable base URL")

        // Usable: http and https in any case, with a host; a later good URL clears the problem.
        for text in ["HTTP://127.0.0.1:\(port)", "http://127.0.0.1:\(port)/"] {
            let host = makeHost()
            host.baseURL = URL(string: "ftp://x")
            host.baseURL = URL(string: text)
            XCTAssertEqual(host.baseURL?.absoluteString, "http" + text.dropFirst(4), "the scheme in lowercase")
            XCTAssertNotNil(value(of: send(TestRequest("/echo"), host: host)), text)
        }
        XCTAssertEqual(HostConfiguration(baseURL: URL(string: "https://api.example.com/v1")).baseURL?.host, "api.example.com")
    }

    /// Issue 28: an IPv6 literal as the host (`http://[::1]:PORT`) failed every request on
    /// Linux with `URLError` -1000 before connecting (swift-corelibs-foundation compares
    /// curl's host, `[::1]`, with `URL.host`, `::1`). There it is refused when given, every
    /// way a base URL is given, with a message that says why and what to use instead, and
    /// nothing is sent; on Apple platforms it is a base URL like any other. `localhost`
    /// reaches the same server.
    func testAnIPv6LiteralBaseURLIsRefusedOnLinuxWithAReasonAndAcceptedElsewhere() throws {
        let v6 = try LoopbackServer(ipv6: true)
        defer { v6.stop() }
        let text = v6.baseURL.absoluteString
        let byInit = HostConfiguration(baseURL: v6.baseURL)
        let byProperty = HostConfiguration(baseURL: nil)
        byProperty.baseURL = v6.baseURL
        let byString = HostConfiguration(baseURL: nil)
        let kept = byString.setBaseURL(string: text)
        for (way, host) in [("init", byInit), ("property", byProperty), ("string", byString)] {
            host.callbackQueue = callbackQueue
            let result = send(TestRequest("/echo"), host: host)
            #if canImport(FoundationNetworking)
            XCTAssertFalse(kept)
            XCTAssertNil(host.baseURL, "\(way): not kept")
            let error = failure(of: result)
            XCTAssertEqual(error?.kind, .invalidRequest, "\(way): \(String(describing: error))")
            let description = error?.localizedDescription ?? ""
            XCTAssertTrue(description.contains("'\(text)'"), "\(way): \(description)")
            XCTAssertTrue(description.contains("IPv6"), "\(way): \(description)")
            XCTAssertTrue(description.contains("localhost"), "\(way): \(description)")
            #else
            XCTAssertTrue(kept)
            XCTAssertEqual(host.baseURL, v6.baseURL, way)
            XCTAssertNotNil(value(of: result), way)
            #endif
        }
        #if canImport(FoundationNetworking)
        XCTAssertEqual(v6.acceptedConnections, 0, "nothing was sent")
        // A request's own absoluteURL with an IPv6 host fails the same way, naming it.
        let absolute = failure(of: send(TestRequest("/x", absoluteURL: v6.baseURL.appendingPathComponent("echo"))))
        XCTAssertEqual(absolute?.kind, .invalidRequest, "\(String(describing: absolute))")
        XCTAssertTrue(absolute?.localizedDescription.contains("IPv6") == true, "\(String(describing: absolute))")
        XCTAssertEqual(v6.acceptedConnections, 0, "nothing was sent")
        #endif
        // What the message advises: a host name that resolves to the address.
        let byName = HostConfiguration(baseURL: URL(string: "http://localhost:\(v6.port)"))
        byName.callbackQueue = callbackQueue
        XCTAssertNotNil(value(of: send(TestRequest("/echo"), host: byName)))
        // An IPv4 address and a name stay usable.
        XCTAssertNotNil(HostConfiguration(baseURL: URL(string: "http://127.0.0.1:8765")).baseURL)
        XCTAssertNotNil(HostConfiguration(baseURL: URL(string: "https://api.example.com/v1")).baseURL)
    }

    #if canImport(FoundationNetworking)
    /// Why the base URL above is refused, shown on a plain `URLSession`: it fails with -1000
    /// before connecting (swift-corelibs-foundation issue 5496, fixed by pull request 5498
    /// after 6.3.1). This test fails once the toolchain has the fix: then let Linux accept
    /// IPv6 literals again (`HostSettings.refusesIPv6Literal`) and update the Linux notes.
    func testURLSessionOnLinuxStillFailsAnIPv6LiteralHostBeforeConnecting() throws {
        let v6 = try LoopbackServer(ipv6: true)
        defer { v6.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let done = expectation(description: "plain task")
        let errors = Collector<URLError?>()
        session.dataTask(with: v6.baseURL.appendingPathComponent("echo")) { _, _, error in
            errors.append(error as? URLError)
            done.fulfill()
        }.resume()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(errors.values.first??.code, .badURL, "fixed in this toolchain? \(String(describing: errors.values.first))")
        XCTAssertEqual(v6.acceptedConnections, 0)
    }
    #endif

    /// Issue 28: each host keeps its own cookie jar (its ephemeral session's, in memory):
    /// a cookie one host received goes back with its next requests, never with another
    /// host's, even to the same server, and never into the app's `HTTPCookieStorage.shared`.
    func testEachHostKeepsItsOwnCookieJar() throws {
        server.route("GET", "/login") { _ in .status(204, headers: ["Set-Cookie": "sid=abc123; Path=/"]) }
        let first = makeHost(), second = makeHost()
        _ = send(TestRequest("/login"), host: first)
        XCTAssertNotNil(value(of: send(TestRequest("/echo"), host: first)))
        XCTAssertNotNil(value(of: send(TestRequest("/echo"), host: second)))
        let echoed = server.requests(path: "/echo")
        XCTAssertEqual(echoed.count, 2)
        XCTAssertEqual(echoed.first?.header("Cookie"), "sid=abc123", "the host that received it sends it back")
        XCTAssertNil(echoed.last?.header("Cookie"), "another host does not get it")
        let shared = HTTPCookieStorage.shared.cookies(for: server.baseURL) ?? []
        XCTAssertFalse(shared.contains { $0.name == "sid" }, "the app's shared jar is untouched")
    }

    func testAnAbsoluteURLRequestStillWorksOnAHostWithAnUnusableBaseURL() {
        let host = HostConfiguration(baseURL: URL(string: "http://"))
        host.callbackQueue = callbackQueue
        XCTAssertNotNil(value(of: send(TestRequest("/ignored", absoluteURL: server.baseURL.appendingPathComponent("echo")), host: host)))
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

    func testEverySettingOutlivesAChangeOfAnother() {
        let host = HostConfiguration(baseURL: nil)
        let queue = DispatchQueue(label: "EasyNetworkTests.other")
        let decoder = JSONDecoder()
        let encoder = JSONEncoder()
        let authenticator = TokenAuthenticator(token: "t0") { done in done(.success("t1")) }
        let cache = ResponseCache(directory: FileManager.default.temporaryDirectory.appendingPathComponent("unused-\(UUID().uuidString)"))
        host.baseURL = server.baseURL
        host.defaultHeaders = ["X-A": "1"]
        host.timeout = 7
        host.totalTimeout = 9
        host.callbackQueue = queue
        host.acceptableStatusCodes = [200, 201]
        host.envelope = .successFlag()
        host.jsonDecoder = decoder
        host.jsonEncoder = encoder
        host.errorHandler = { _, _ in }
        host.interceptors = [ClosureInterceptor()]
        host.retryPolicy = RetryPolicy(maxAttempts: 4)
        host.authenticator = authenticator
        host.coalescesRequests = true
        host.responseCache = cache
        host.cachePolicy = .cacheThenNetwork
        host.timeout = 8

        XCTAssertEqual(host.baseURL, server.baseURL)
        XCTAssertEqual(host.defaultHeaders, ["X-A": "1"])
        XCTAssertEqual(host.timeout, 8)
        XCTAssertEqual(host.totalTimeout, 9)
        XCTAssertTrue(host.callbackQueue === queue)
        XCTAssertEqual(host.acceptableStatusCodes, [200, 201])
        XCTAssertNotNil(host.envelope)
        XCTAssertTrue(host.jsonDecoder === decoder)
        XCTAssertTrue(host.jsonEncoder === encoder)
        XCTAssertNotNil(host.errorHandler)
        XCTAssertEqual(host.interceptors.count, 1)
        XCTAssertTrue(host.interceptors.first is ClosureInterceptor)
        XCTAssertEqual(host.retryPolicy.maxAttempts, 4)
        XCTAssertTrue(host.authenticator === authenticator)
        XCTAssertTrue(host.coalescesRequests)
        XCTAssertTrue(host.responseCache === cache)
        XCTAssertEqual(host.cachePolicy, .cacheThenNetwork)

        XCTAssertFalse(host.setBaseURL(string: "no host"))
        XCTAssertNil(host.baseURL)
        XCTAssertEqual(host.timeout, 8, "a rejected base URL changes nothing else")
        XCTAssertTrue(host.authenticator === authenticator)
    }

    func testASnapshotKeepsItsSettingsWhileTheNextSeesTheChange() {
        let host = makeHost()
        host.defaultHeaders = ["X-Step": "1"]
        let before = host.snapshot()
        XCTAssertTrue(before === host.snapshot(), "requests that start between two changes share one snapshot")

        host.defaultHeaders = ["X-Step": "2"]
        host.timeout = 5
        let after = host.snapshot()
        XCTAssertEqual(before.settings.defaultHeaders, ["X-Step": "1"])
        XCTAssertEqual(before.settings.timeout, 60)
        XCTAssertEqual(after.settings.defaultHeaders, ["X-Step": "2"])
        XCTAssertEqual(after.settings.timeout, 5)
    }

    func testARequestInFlightKeepsTheSettingsItStartedWith() {
        let host = makeHost()
        host.defaultHeaders = ["X-Step": "1"]
        let done = expectation(description: "request")
        let outcome = Collector<NetworkError?>()
        EasyNetworkService(host).request(TestRequest("/delay/500"), success: { _ in
            outcome.append(nil)
            done.fulfill()
        }, failure: { error in
            outcome.append(error)
            done.fulfill()
        })
        let deadline = Date().addingTimeInterval(5)
        while server.requests.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        host.acceptableStatusCodes = [201]
        host.defaultHeaders = ["X-Step": "2"]
        wait(for: [done], timeout: 10)
        XCTAssertEqual(outcome.values.count, 1)
        XCTAssertNil(outcome.values.first ?? nil, "the 200 is judged by the codes the request started with")
        XCTAssertEqual(server.requests.first?.header("X-Step"), "1")

        guard case .failure(let error) = send(TestRequest("/echo"), host: host) else { return XCTFail("the next request must see the change") }
        XCTAssertEqual(error.kind, .unacceptableStatus)
        XCTAssertEqual(server.requests.last?.header("X-Step"), "2")
    }

    func testConcurrentChangesOfDifferentSettingsAreNotLost() {
        let host = makeHost()
        let rounds = 4000
        let inconsistent = Collector<Int>()
        let group = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for thread in 0..<8 {
            group.enter()
            Thread.detachNewThread {
                start.wait()
                for round in 1...rounds {
                    switch thread {
                    case 0: host.timeout = TimeInterval(round)
                    case 1: host.totalTimeout = TimeInterval(round)
                    case 2: host.defaultHeaders = ["X-Round": "\(round)"]
                    case 3: host.acceptableStatusCodes = [round]
                    case 4: host.retryPolicy = RetryPolicy(maxAttempts: round)
                    case 5: host.setBaseURL(string: round.isMultiple(of: 2) ? "https://example.invalid/\(round)" : "not a url \(round)")
                    case 6: host.coalescesRequests = round.isMultiple(of: 2)
                    default:
                        // A snapshot has a base URL or the reason it has none, never both or neither.
                        let settings = host.snapshot().settings
                        if (settings.baseURL == nil) == (settings.baseURLProblem == nil) { inconsistent.append(round) }
                    }
                }
                group.leave()
            }
        }
        for _ in 0..<8 { start.signal() }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(inconsistent.values, [])
        XCTAssertEqual(host.timeout, TimeInterval(rounds))
        XCTAssertEqual(host.totalTimeout, TimeInterval(rounds))
        XCTAssertEqual(host.defaultHeaders, ["X-Round": "\(rounds)"])
        XCTAssertEqual(host.acceptableStatusCodes, [rounds])
        XCTAssertEqual(host.retryPolicy.maxAttempts, rounds)
        XCTAssertEqual(host.baseURL?.absoluteString, "https://example.invalid/\(rounds)")
        XCTAssertTrue(host.coalescesRequests)
    }

    func testASettingsChangeMayReleaseAnObjectThatReadsTheHost() {
        let host = makeHost()
        let seen = Collector<TimeInterval>()
        host.interceptors = [HostReadingInterceptor(host: host, seen: seen)]
        let replaced = expectation(description: "replaced")
        Thread.detachNewThread {
            host.interceptors = []  // drops the last reference: its deinit reads host.timeout
            replaced.fulfill()
        }
        wait(for: [replaced], timeout: 10)
        XCTAssertEqual(seen.values, [60], "the replaced value goes after the host's lock is released")
    }
}

/// An interceptor that reads its host's settings when it goes away.
private final class HostReadingInterceptor: RequestInterceptor {
    let host: HostConfiguration
    let seen: Collector<TimeInterval>

    init(host: HostConfiguration, seen: Collector<TimeInterval>) {
        self.host = host
        self.seen = seen
    }

    deinit {
        seen.append(host.timeout)
    }
}
