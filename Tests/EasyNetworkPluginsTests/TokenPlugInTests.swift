@testable import EasyNetwork
@testable import EasyNetworkPlugins
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The token's part in a request: a token holding CR, LF or NUL (read from a file with its
/// trailing newline, say) fails the request, untrimmed, with a `HeaderFieldError` that says
/// what is wrong, before anything is sent. Before the check, Linux's `setValue` dropped it:
/// the request went out with no `Authorization` at all (or, replacing an older token, with
/// the older one), the server answered 401 and the authenticator refreshed.
final class TokenPlugInTests: ServerTestCase {
    private let token = "eyJhbGciOi.secret-part"

    private func makeHost(token: String?, refresh: @escaping TokenAuthenticator.Refresh) -> HostConfiguration {
        let host = makeHost()
        host.authenticator = TokenAuthenticator(token: token, refresh: refresh)
        return host
    }

    private func assertRefused(_ result: Result<Any?, NetworkError>, problem: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let error = failure(of: result, file: file, line: line) else { return }
        XCTAssertEqual(error.kind, .invalidRequest, "\(error)", file: file, line: line)
        let header = error.underlyingError as? HeaderFieldError
        XCTAssertNil(header?.name, "a custom apply may choose the header", file: file, line: line)
        XCTAssertEqual(header?.source, "the token of the host's TokenAuthenticator", file: file, line: line)
        XCTAssertEqual(header?.problem, problem, file: file, line: line)
        XCTAssertFalse(error.localizedDescription.contains("secret-part"), "the token leaked", file: file, line: line)
        XCTAssertEqual(server.requests.count, 0, "nothing may be sent", file: file, line: line)
    }

    func testTokenWithTrailingNewlineFailsTheRequestUntrimmed() {
        server.route("/protected") { request in
            request.header("Authorization") == nil ? .json(#"{"error": "no token"}"#, status: 401) : .json("{}")
        }
        let refreshes = Collector<Int>()
        let host = makeHost(token: token + "\n") { done in
            refreshes.append(1)
            done(.success("fresh"))
        }
        assertRefused(send(TestRequest("/protected"), host: host), problem: "it ends with a line feed (LF)")
        XCTAssertEqual(refreshes.count, 0, "no refresh for a token the request never sent")
        XCTAssertEqual(host.authenticator?.token, token + "\n", "the token is not trimmed behind the caller's back")
    }

    func testRefreshedTokenWithCRLFFailsTheReplayInsteadOfResendingTheOldToken() {
        server.route("/protected") { request in
            request.header("Authorization") == "Bearer fresh" ? .json("{}") : .json(#"{"error": "expired"}"#, status: 401)
        }
        let host = makeHost(token: "old") { done in done(.success("fresh\r\n")) }
        let result = send(TestRequest("/protected"), host: host)
        guard let error = failure(of: result) else { return }
        XCTAssertEqual(error.kind, .invalidRequest, "\(error)")
        XCTAssertEqual((error.underlyingError as? HeaderFieldError)?.problem,
                       "it ends with a carriage return (CR) and a line feed (LF)")
        let sent = server.requests(path: "/protected").map { $0.header("Authorization") }
        XCTAssertEqual(sent, ["Bearer old"], "the replay is refused, not sent with the old token")
    }

    func testValidTokenIsSent() {
        server.route("/protected") { _ in .json("{}") }
        let host = makeHost(token: token) { done in done(.success("x")) }
        XCTAssertNotNil(value(of: send(TestRequest("/protected"), host: host)))
        XCTAssertEqual(server.requests.first?.header("Authorization"), "Bearer " + token)
    }
}
