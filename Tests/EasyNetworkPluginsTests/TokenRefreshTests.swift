@testable import EasyNetwork
import EasyNetworkEnvelopes
@testable import EasyNetworkPlugins
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The server side of a token: which token is valid, how many refreshes happened.
final class TokenBackend: @unchecked Sendable {
    private let lock = NSLock()
    /// Until the first refresh no client token is valid; refresh n issues "t<n>".
    private var validToken = "not-issued-yet"
    private var refreshes = 0
    private var refreshFails = false
    private var alwaysUnauthorized = false
    private var acceptedDelay: TimeInterval = 0

    func configure(failRefresh: Bool = false, alwaysUnauthorized: Bool = false) {
        lock.lock(); defer { lock.unlock() }
        refreshFails = failRefresh
        self.alwaysUnauthorized = alwaysUnauthorized
    }

    var refreshCount: Int { lock.lock(); defer { lock.unlock() }; return refreshes }

    /// Requests with the valid token are answered after `delay` seconds.
    func answerAccepted(after delay: TimeInterval) {
        lock.lock(); defer { lock.unlock() }
        acceptedDelay = delay
    }

    /// The server forgets the valid token: every request gets 401 until the next refresh.
    func expire() {
        lock.lock(); defer { lock.unlock() }
        validToken = "expired-\(refreshes)"
    }

    func install(on server: LoopbackServer) {
        server.route("GET", prefix: "/protected") { [self] request in
            lock.lock(); defer { lock.unlock() }
            if !alwaysUnauthorized, request.header("Authorization") == "Bearer \(validToken)" {
                return acceptedDelay > 0 ? .delayed(acceptedDelay, .json(#"{"ok": true}"#)) : .json(#"{"ok": true}"#)
            }
            // A little late, so that requests sent together all get their 401 before the refresh.
            return .delayed(0.2, .json(#"{"error": "token expired"}"#, status: 401, headers: ["WWW-Authenticate": #"Bearer realm="api""#]))
        }
        server.route("POST", "/refresh") { [self] _ in
            lock.lock(); defer { lock.unlock() }
            if refreshFails { return .json(#"{"error": "refresh token revoked"}"#, status: 500) }
            refreshes += 1
            validToken = "t\(refreshes)"
            return .json(#"{"token": "\#(validToken)"}"#)
        }
    }
}

struct RefreshRequest: BaseAPIRequest {
    var api: String { "/refresh" }
    var method: NetworkService.Method { .post }
    var query: NetworkService.QueryType { .json }
    var params: [String: Any]? { ["refreshToken": "r"] }
    var headers: [String: String]? { nil }
    var requiresAuthentication: Bool { false }
}

final class TokenRefreshTests: ServerTestCase {
    private let backend = TokenBackend()

    override func setUpWithError() throws {
        try super.setUpWithError()
        backend.install(on: server)
    }

    /// A host whose authenticator refreshes through the host itself (the refresh
    /// request opts out of authentication).
    private func makeAuthenticatedHost(token: String? = "t0") -> HostConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        let host = HostConfiguration(baseURL: server.baseURL, sessionConfiguration: configuration)
        host.callbackQueue = callbackQueue
        let refreshHost = makeHost()
        host.authenticator = TokenAuthenticator(token: token) { done in
            EasyNetworkService(refreshHost).request(RefreshRequest(), success: { json in
                if let token = (json as? [String: Any])?["token"] as? String {
                    done(.success(token))
                } else {
                    done(.failure(NetworkError(kind: .decoding, message: "no token")))
                }
            }, failure: { error in done(.failure(error)) })
        }
        return host
    }

    private func runConcurrently(_ count: Int, host: HostConfiguration) -> [Result<Any?, NetworkError>] {
        let queue = NetworkQueue(maxConcurrentOperationCount: count)
        let ops = (0..<count).map { index in
            RequestOperation(request: TestRequest("/protected/\(index)"), configuration: host, responseDecoder: .json)
        }
        queue.addOperations(ops, waitUntilFinished: false)
        ops.forEach { waitUntilFinished($0, timeout: 20) }
        callbackQueue.sync {}
        return ops.compactMap { $0.result }
    }

    func testFiftyConcurrent401sCauseExactlyOneRefreshAndAllReplayOnce() {
        let host = makeAuthenticatedHost()
        let results = runConcurrently(50, host: host)
        XCTAssertEqual(results.count, 50)
        XCTAssertEqual(results.filter { if case .success = $0 { return true } else { return false } }.count, 50)
        XCTAssertEqual(backend.refreshCount, 1)
        let protected = server.requests.filter { $0.path.hasPrefix("/protected") }
        XCTAssertEqual(protected.filter { $0.header("Authorization") == "Bearer t0" }.count, 50)
        XCTAssertEqual(protected.filter { $0.header("Authorization") == "Bearer t1" }.count, 50)
        XCTAssertEqual(protected.count, 100, "each request replays exactly once")
        XCTAssertEqual(host.authenticator?.token, "t1")
        XCTAssertNil(server.requests(path: "/refresh").first?.header("Authorization"), "the refresh itself carries no token")
    }

    func testRequestWithAnOlderTokenReplaysWithoutRefreshing() {
        let host = makeAuthenticatedHost()
        _ = runConcurrently(1, host: host)
        XCTAssertEqual(backend.refreshCount, 1)
        host.authenticator?.setToken("t1")   // same token the server accepts
        let results = runConcurrently(5, host: host)
        XCTAssertEqual(results.filter { if case .success = $0 { return true } else { return false } }.count, 5)
        XCTAssertEqual(backend.refreshCount, 1)
    }

    func testFailedRefreshFailsEveryWaiterAndPostsTheSignalOnce() {
        backend.configure(failRefresh: true)
        let host = makeAuthenticatedHost()
        let signals = Collector<NetworkError>()
        let observer = NotificationCenter.default.addObserver(forName: HostConfiguration.unauthorizedOperationNotification, object: host, queue: nil) { note in
            if let error = note.userInfo?["error"] as? NetworkError { signals.append(error) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let results = runConcurrently(20, host: host)
        XCTAssertEqual(results.count, 20)
        for result in results {
            guard case .failure(let error) = result else { return XCTFail("must fail") }
            XCTAssertEqual(error.kind, .authentication)
        }
        XCTAssertEqual(server.requests(path: "/refresh").count, 1, "one refresh for all waiters")
        RunLoop.current.run(until: Date().addingTimeInterval(0.1))
        XCTAssertEqual(signals.count, 1)
        XCTAssertEqual(signals.values.first?.kind, .authentication)
    }

    func testServerThatAlwaysAnswers401CausesBoundedRefreshesAndEveryRequestEnds() {
        backend.configure(alwaysUnauthorized: true)
        let host = makeAuthenticatedHost()
        for _ in 0..<4 {
            let results = runConcurrently(10, host: host)
            XCTAssertEqual(results.count, 10, "every request ends")
            XCTAssertTrue(results.allSatisfy { if case .failure = $0 { return true } else { return false } })
        }
        XCTAssertLessThanOrEqual(server.requests(path: "/refresh").count, 3, "rate-limited: at most 3 refreshes in 30 s")
        XCTAssertGreaterThanOrEqual(server.requests(path: "/refresh").count, 1)
    }

    func testMissingTokenRefreshesBeforeTheFirstSend() {
        let host = makeAuthenticatedHost(token: nil)
        let results = runConcurrently(3, host: host)
        XCTAssertEqual(results.filter { if case .success = $0 { return true } else { return false } }.count, 3)
        XCTAssertEqual(backend.refreshCount, 1)
        XCTAssertEqual(server.requests.filter { $0.path.hasPrefix("/protected") }.count, 3)
    }

    func testRequestThatOptsOutOfAuthenticationCarriesNoToken() {
        let host = makeAuthenticatedHost()
        _ = send(RefreshRequest(), host: host)
        XCTAssertNil(server.requests(path: "/refresh").first?.header("Authorization"))
    }

    func testUnauthorizedBusinessCodeAlsoRefreshes() {
        let host = makeAuthenticatedHost()
        host.envelope = .codeEquals(0, unauthorizedCodes: ["40101"])
        server.route("GET", "/biz-protected") { request in
            request.header("Authorization") == "Bearer t1"
                ? .json(#"{"code": 0, "data": {"ok": true}}"#)
                : .json(#"{"code": 40101, "msg": "token expired"}"#)
        }
        let result = send(TestRequest("/biz-protected"), host: host)
        XCTAssertEqual((value(of: result) as? [String: Any])?["ok"] as? Bool, true)
        XCTAssertEqual(backend.refreshCount, 1)
    }
}
