@testable import EasyNetwork
import EasyNetworkDownloads
@testable import EasyNetworkPinning
import EasyNetworkPlugins
import EasyNetworkRetry
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Pins on a host, through the pipeline against the loopback server. On Linux, which gives
/// no server-trust challenge, a pinned host is refused before anything is sent unless it
/// allows unpinned requests; everywhere, a pinned host is reached over HTTPS only, a
/// redirect too; a refusal is reported once, never retried, and named in the logs.
final class PinRulesTests: ServerTestCase {
    private let pins = [Data(repeating: 1, count: 32).base64EncodedString(), Data(repeating: 2, count: 32).base64EncodedString()]

    private func pinnedHost(_ entries: [PinnedHost]) throws -> HostConfiguration {
        let host = makeHost()
        host.publicKeyPinning = try PublicKeyPinning(entries)
        return host
    }

    /// The URL of `path` on the loopback server with another scheme or host name.
    private func url(_ path: String, scheme: String = "http", host: String = "127.0.0.1") -> URL {
        var components = URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false)
        components?.scheme = scheme
        components?.host = host
        components?.path = path
        return components?.url ?? server.baseURL
    }

    private func pinningError(_ result: Result<Any?, NetworkError>, file: StaticString = #filePath, line: UInt = #line) -> PublicKeyPinningError? {
        guard let error = failure(of: result, file: file, line: line) else { return nil }
        XCTAssertEqual(error.kind, .transport, "\(error)", file: file, line: line)
        XCTAssertNotNil(error.publicKeyPinningError, "\(error)", file: file, line: line)
        XCTAssertTrue(error.localizedDescription.contains("public-key pinning refused"), error.localizedDescription, file: file, line: line)
        return error.publicKeyPinningError
    }

    func testAPinnedHostOverHTTPIsRefusedBeforeAnythingIsSent() throws {
        let host = try pinnedHost([PinnedHost("127.0.0.1", pins: pins, allowsUnpinnedWhereUnsupported: true)])
        let refused = pinningError(send(TestRequest("/echo"), host: host))
        XCTAssertEqual(refused?.reason, .notHTTPS)
        XCTAssertEqual(refused?.host, "127.0.0.1")
        XCTAssertEqual(server.acceptedConnections, 0)
    }

    #if canImport(FoundationNetworking)
    func testOnLinuxAPinnedHostIsRefusedBeforeAnyConnection() throws {
        let host = try pinnedHost([PinnedHost("127.0.0.1", pins: pins)])
        host.retryPolicy = RetryPolicy(maxAttempts: 5, baseDelay: 0.01)
        let retries = Collector<NetworkError>()
        host.interceptors = [ClosureInterceptor(retry: { error, _, completion in
            retries.append(error)
            completion(.retry(after: 0))
        })]
        let refused = pinningError(send(TestRequest("/echo", absoluteURL: url("/echo", scheme: "https")), host: host))
        XCTAssertEqual(refused?.reason, .notEnforceable)
        XCTAssertTrue(refused?.message.contains("allowsUnpinnedWhereUnsupported: true") ?? false)
        XCTAssertEqual(server.acceptedConnections, 0, "not even a TLS handshake")
        XCTAssertEqual(retries.count, 0, "never offered for a retry")
    }

    func testOnLinuxAHostThatAllowsUnpinnedRequestsIsSentCheckedByTheSystemAlone() throws {
        let host = try pinnedHost([PinnedHost("127.0.0.1", pins: pins, allowsUnpinnedWhereUnsupported: true)])
        // The loopback server speaks plain HTTP and waits for a request head that never comes:
        // the TLS handshake ends at the transport (a timeout).
        let error = failure(of: send(TestRequest("/echo", timeout: 1, absoluteURL: url("/echo", scheme: "https")), host: host))
        XCTAssertEqual(error?.kind, .transport)
        XCTAssertNil(error?.publicKeyPinningError, "\(String(describing: error))")
        XCTAssertGreaterThanOrEqual(server.acceptedConnections, 1, "it went to the network")
    }

    func testOnLinuxADownloadOfAPinnedHostIsRefused() throws {
        let host = try pinnedHost([PinnedHost("127.0.0.1", pins: pins)])
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("pinned-\(UUID().uuidString)")
        let download = DownloadOperation(request: TestRequest("/file", absoluteURL: url("/file", scheme: "https")), configuration: host, to: destination)
        NetworkQueue().addOperation(download)
        waitUntilFinished(download, timeout: 10)
        guard case .failure(let error)? = download.result else { return XCTFail("\(String(describing: download.result))") }
        XCTAssertEqual(error.publicKeyPinningError?.reason, .notEnforceable)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertEqual(server.acceptedConnections, 0)
    }
    #endif

    func testARedirectToAPinnedHostOverHTTPIsRefusedAndNotRetried() throws {
        let target = url("/target").absoluteString
        server.route("/go") { _ in .status(302, headers: ["Location": target]) }
        server.route("/target") { _ in .json("{}") }
        let host = try pinnedHost([PinnedHost("127.0.0.1", pins: pins, allowsUnpinnedWhereUnsupported: true)])
        host.retryPolicy = RetryPolicy(maxAttempts: 5, baseDelay: 0.01)
        let retries = Collector<NetworkError>()
        host.interceptors = [ClosureInterceptor(retry: { error, _, completion in
            retries.append(error)
            completion(.retry(after: 0))
        })]
        let errors = Collector<NetworkError>()
        host.errorHandler = { _, error in errors.append(error) }
        // `localhost` is not pinned: the request goes out, the redirect to 127.0.0.1 does not.
        let refused = pinningError(send(TestRequest("/go", absoluteURL: url("/go", host: "localhost")), host: host))
        XCTAssertEqual(refused?.reason, .notHTTPS)
        XCTAssertEqual(server.requests(path: "/go").count, 1, "never retried")
        XCTAssertEqual(server.requests(path: "/target").count, 0)
        XCTAssertEqual(retries.count, 0, "no interceptor is asked")
        callbackQueue.sync {}
        XCTAssertEqual(errors.count, 1, "reported once")
    }

    #if canImport(FoundationNetworking)
    func testOnLinuxARedirectToAPinnedHostOverHTTPSIsRefused() throws {
        let target = url("/target", scheme: "https").absoluteString
        server.route("/go") { _ in .status(302, headers: ["Location": target]) }
        let host = try pinnedHost([PinnedHost("127.0.0.1", pins: pins)])
        let refused = pinningError(send(TestRequest("/go", absoluteURL: url("/go", host: "localhost")), host: host))
        XCTAssertEqual(refused?.reason, .notEnforceable)
        XCTAssertEqual(server.requests.map(\.path), ["/go"])
    }
    #endif

    func testUnpinnedAndExpiredHostsAreUntouched() throws {
        let host = try pinnedHost([
            PinnedHost("api.example.com", pins: pins),
            PinnedHost("127.0.0.1", pins: pins, expires: Date().addingTimeInterval(-1)),
        ])
        XCTAssertNotNil(value(of: send(TestRequest("/echo"), host: host)), "127.0.0.1's pins expired")
        XCTAssertNotNil(value(of: send(TestRequest("/echo", absoluteURL: url("/echo", host: "localhost")), host: host)))
    }

    func testARefusedRequestNeverWaitsForAToken() throws {
        let host = try pinnedHost([PinnedHost("127.0.0.1", pins: pins, allowsUnpinnedWhereUnsupported: true)])
        let refreshes = Collector<Int>()
        host.authenticator = TokenAuthenticator(token: nil) { done in
            refreshes.append(1)
            done(.success("t"))
        }
        XCTAssertEqual(pinningError(send(TestRequest("/echo"), host: host))?.reason, .notHTTPS)
        XCTAssertEqual(refreshes.count, 0, "pins are checked before the token")
    }

    func testTheRefusalIsNamedInTheLogs() throws {
        let host = try pinnedHost([PinnedHost("127.0.0.1", pins: pins, allowsUnpinnedWhereUnsupported: true)])
        let lines = Collector<String>()
        host.interceptors = [LoggingInterceptor(level: .info) { _, line in lines.append(line) }]
        _ = send(TestRequest("/echo"), host: host)
        callbackQueue.sync {}
        XCTAssertEqual(lines.count, 1)
        XCTAssertTrue(lines.values.first?.contains("public-key pinning refused 127.0.0.1: a pinned host is only reached over HTTPS") ?? false,
                      lines.values.first ?? "")
    }

    func testSettingPinsInstallsTheJudgeAndStartsNewConnections() throws {
        let host = makeHost()
        XCTAssertNotNil(value(of: send(TestRequest("/echo"), host: host)))
        let pinning = try PublicKeyPinning([PinnedHost("api.example.com", pins: pins)])
        host.publicKeyPinning = pinning
        XCTAssertTrue(host.publicKeyPinning === pinning)
        XCTAssertTrue(host.transport.delegate.trustEvaluator === pinning)
        XCTAssertNotNil(value(of: send(TestRequest("/echo"), host: host)))
        XCTAssertEqual(server.acceptedConnections, 2, "no connection made before the pins is reused")
        host.publicKeyPinning = nil
        XCTAssertNil(host.publicKeyPinning)
        XCTAssertNil(host.transport.delegate.trustEvaluator)
    }

    func testRefusalNeedsAURLOfAPinnedHost() throws {
        let rules = try PublicKeyPinning([PinnedHost("example.com", pins: pins, includesSubdomains: true, allowsUnpinnedWhereUnsupported: true)])
        XCTAssertNil(rules.refusal(for: nil))
        XCTAssertNil(rules.refusal(for: URL(string: "http://example.org/")))
        XCTAssertNil(rules.refusal(for: URL(string: "https://a.example.com/")))
        XCTAssertEqual(rules.refusal(for: URL(string: "http://a.example.com/"))?.publicKeyPinningError?.reason, .notHTTPS)
        XCTAssertEqual(rules.refusal(for: URL(string: "HTTP://EXAMPLE.COM./"))?.publicKeyPinningError?.reason, .notHTTPS)
    }
}
