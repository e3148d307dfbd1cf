import EasyNetwork
import EasyNetworkPlugins
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the logger writes, captured from its sink.
final class LoggingInterceptorTests: ServerTestCase {
    private func logger(_ level: LogLevel = .debug, redaction: LogRedaction = .default, into lines: Collector<String>) -> LoggingInterceptor {
        LoggingInterceptor(level: level, redaction: redaction) { level, text in lines.append("\(level): \(text)") }
    }

    // MARK: redaction

    func testHeaderNamesAddedInAnyCaseAreHiddenInEveryCase() {
        var redaction = LogRedaction.default
        redaction.headers.insert("X-Client-Secret")
        redaction.headers.insert("x-ANOTHER-secret")
        XCTAssertTrue(redaction.hidesHeader("x-client-secret"))
        XCTAssertTrue(redaction.hidesHeader("X-CLIENT-SECRET"))
        XCTAssertTrue(redaction.hidesHeader("X-Another-Secret"))
        let lines = Collector<String>()
        let host = makeHost()
        host.defaultHeaders = ["X-Client-Secret": "SECRET-HEADER", "X-Another-Secret": "SECRET-OTHER"]
        host.interceptors = [logger(redaction: redaction, into: lines)]
        server.route("GET", "/reply") { _ in
            .status(200, headers: ["Content-Type": "application/json", "x-client-SECRET": "SECRET-RESPONSE-HEADER"], body: Data(#"{"ok": true}"#.utf8))
        }
        _ = send(TestRequest("/echo"), host: host)  // reflects the request's headers into its JSON body
        _ = send(TestRequest("/reply"), host: host)
        let all = lines.values.joined(separator: "\n")
        for secret in ["SECRET-HEADER", "SECRET-OTHER", "SECRET-RESPONSE-HEADER"] {
            XCTAssertFalse(all.contains(secret), "\(secret) leaked:\n\(all)")
        }
        XCTAssertTrue(all.contains("<redacted>"), all)
        XCTAssertTrue(all.lowercased().contains("\n  x-client-secret: <redacted>"), "the response's header lines are logged, masked:\n\(all)")
        XCTAssertTrue(all.lowercased().contains("\n  content-type: application/json"), "the response's header lines are logged:\n\(all)")
        XCTAssertEqual(server.requests(path: "/echo").first?.header("X-Client-Secret"), "SECRET-HEADER", "only the log is masked")
    }

    func testSecretLookingFieldsAreHiddenInJSONFormsAndQueriesAtAnyDepth() {
        var redaction = LogRedaction.default
        redaction.parameters.insert("PIN_Code")
        let lines = Collector<String>()
        let host = makeHost()
        host.interceptors = [logger(redaction: redaction, into: lines)]
        server.route("POST", "/json") { _ in
            .status(200, headers: ["Content-Type": "application/json"], body: Data(#"{"session": {"Refresh_Token": "SECRET-R1", "list": [{"id_token": "SECRET-R2"}]}}"#.utf8))
        }
        server.route("POST", "/form") { _ in .json(#"{"saved": true}"#) }
        let json: [String: Any] = [
            "user": "ana",
            "credentials": ["password": "SECRET-J1", "clientSecret": "SECRET-J2"],
            "devices": [["access_token": "SECRET-J3"], ["accessToken": "SECRET-J4", "name": "phone"]],
            "secret": "SECRET-J5",
            "pin_code": "SECRET-J6",
        ]
        _ = send(TestRequest("/json?filter%5Btoken%5D=SECRET-Q1&Access_Token=SECRET-Q2&page=2", method: .post, query: .json, params: json), host: host)
        _ = send(TestRequest("/form", method: .post, query: .form, params: ["user": ["password": "SECRET-F1"], "refresh_token": "SECRET-F2", "name": "ana"]), host: host)
        let all = lines.values.joined(separator: "\n")
        for secret in ["SECRET-J1", "SECRET-J2", "SECRET-J3", "SECRET-J4", "SECRET-J5", "SECRET-J6", "SECRET-Q1", "SECRET-Q2", "SECRET-F1", "SECRET-F2", "SECRET-R1", "SECRET-R2"] {
            XCTAssertFalse(all.contains(secret), "\(secret) leaked:\n\(all)")
        }
        XCTAssertTrue(all.contains("page=2"), all)
        XCTAssertTrue(all.contains("phone"), all)
        XCTAssertTrue(all.contains("name=ana"), all)
    }

    func testQueryFieldsAreMaskedOneByOne() throws {
        let url = try XCTUnwrap(URL(string: "https://h.test/p?token&=v&&a=1&user%5Bpassword%5D=x&items%5B0%5D%5BToken%5D=y&q=a+b&Pass+Word=z#frag"))
        XCTAssertEqual(
            LogRedaction.default.redact(url),
            "https://h.test/p?token=<redacted>&=v&&a=1&user%5Bpassword%5D=<redacted>&items%5B0%5D%5BToken%5D=<redacted>&q=a+b&Pass+Word=z#frag"
        )
        XCTAssertEqual(LogRedaction.default.redact(try XCTUnwrap(URL(string: "https://h.test/p"))), "https://h.test/p")
    }

    // MARK: the URL is in every line

    /// Every finishing line (`←`) of `lines` names `path`.
    private func assertEveryEndingNames(_ path: String, _ lines: Collector<String>, count: Int, file: StaticString = #filePath, line: UInt = #line) {
        let endings = lines.values.filter { $0.contains("← ") }
        XCTAssertEqual(endings.count, count, "\(lines.values)", file: file, line: line)
        for ending in endings {
            XCTAssertFalse(ending.contains("(no URL)"), ending, file: file, line: line)
            XCTAssertTrue(ending.contains(path), ending, file: file, line: line)
        }
    }

    func testAFailedAdaptStillLogsTheURL() {
        struct Refused: Error {}
        let lines = Collector<String>()
        let host = makeHost()
        host.interceptors = [ClosureInterceptor(adapt: { _, _ in throw Refused() }), logger(.info, into: lines)]
        let error = failure(of: send(TestRequest("/signed?page=1", method: .post), host: host))
        XCTAssertEqual(error?.kind, .invalidRequest)
        assertEveryEndingNames("/signed?page=1", lines, count: 1)
        XCTAssertTrue(lines.values.first?.contains("POST") ?? false, "\(lines.values)")
    }

    func testAFailedTokenRefreshStillLogsTheURL() {
        struct NoToken: Error {}
        let lines = Collector<String>()
        let host = makeHost()
        host.authenticator = TokenAuthenticator(token: nil) { done in done(.failure(NoToken())) }
        host.interceptors = [logger(.info, into: lines)]
        _ = failure(of: send(TestRequest("/orders", method: .post), host: host))
        assertEveryEndingNames("/orders", lines, count: 1)
        XCTAssertEqual(server.requests(path: "/orders").count, 0)
    }

    func testFastFailuresLogTheURLEveryTime() throws {
        let closed = try LoopbackServer()
        let url = closed.baseURL
        closed.stop()
        let lines = Collector<String>()
        let host = HostConfiguration(baseURL: url)
        host.callbackQueue = callbackQueue
        let unsent = Collector<String>()
        host.interceptors = [logger(.info, into: lines), ClosureInterceptor(didFinish: { outcome, _ in
            if outcome.urlRequest?.url == nil { unsent.append(outcome.error.map { "\($0)" } ?? "success") }
        })]
        let service = EasyNetworkService(host)
        let group = DispatchGroup()
        let total = 1000
        for index in 0..<total {
            group.enter()
            service.request(TestRequest("/refused/\(index)", method: .post), success: { _ in group.leave() }, failure: { _ in group.leave() })
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        assertEveryEndingNames("/refused/", lines, count: total)
        XCTAssertEqual(unsent.values, [], "sent requests whose outcome lacks the request")
    }

    // MARK: moved from InterceptorTests: logging through a host

    func testLoggingRedactsTokensCookiesAndPasswords() {
        let lines = Collector<String>()
        let host = makeHost()
        host.defaultHeaders = ["Cookie": "session=SECRET-COOKIE"]
        host.authenticator = TokenAuthenticator(token: "SECRET-TOKEN") { done in done(.success("SECRET-TOKEN-2")) }
        host.interceptors = [LoggingInterceptor(level: .debug) { level, text in lines.append("\(level): \(text)") }]
        server.route("POST", "/login") { _ in
            .status(200, headers: ["Content-Type": "application/json", "Set-Cookie": "sid=SECRET-SET-COOKIE"], body: Data(#"{"token": "SECRET-RESPONSE-TOKEN", "user": "ana"}"#.utf8))
        }
        _ = send(TestRequest("/login?token=SECRET-QUERY", method: .post, query: .json, params: ["user": "ana", "password": "SECRET-PASSWORD", "profile": ["access_token": "SECRET-NESTED"]]), host: host)
        server.route("POST", "/form") { _ in .json(#"{"saved": true}"#) }
        _ = send(TestRequest("/form", method: .post, query: .form, params: ["password": "SECRET-FORM", "name": "ana"]), host: host)
        _ = send(TestRequest("/echo"), host: host)  // the echo reflects the request's headers into its JSON body
        let all = lines.values.joined(separator: "\n")
        for secret in ["SECRET-COOKIE", "SECRET-TOKEN", "SECRET-PASSWORD", "SECRET-NESTED", "SECRET-SET-COOKIE", "SECRET-RESPONSE-TOKEN", "SECRET-QUERY", "SECRET-FORM"] {
            XCTAssertFalse(all.contains(secret), "\(secret) leaked:\n\(all)")
        }
        XCTAssertTrue(all.contains("<redacted>"))
        XCTAssertTrue(all.contains("curl -X POST"), all)
        XCTAssertTrue(all.contains("\"user\" : \"ana\""), "pretty-printed JSON body:\n\(all)")
        XCTAssertTrue(all.contains("info: ← 200 POST"), all)
        XCTAssertTrue(all.contains(" ms, "), all)
        XCTAssertTrue(server.requests(path: "/login").first?.header("Authorization") == "Bearer SECRET-TOKEN", "the real request keeps its token")
    }

    func testLoggingLevelsAndTruncation() {
        let lines = Collector<String>()
        let host = makeHost()
        host.interceptors = [LoggingInterceptor(level: .error, bodyLimit: 10) { _, text in lines.append(text) }]
        _ = send(TestRequest("/echo"), host: host)
        XCTAssertEqual(lines.count, 0, "error level hides successes")
        _ = send(TestRequest("/status/500"), host: host)
        XCTAssertEqual(lines.count, 1)
        XCTAssertTrue(lines.values.first?.contains("✕") ?? false)

        let debug = Collector<String>()
        host.interceptors = [LoggingInterceptor(level: .debug, bodyLimit: 10) { _, text in debug.append(text) }]
        _ = send(TestRequest("/large/5000"), host: host)
        XCTAssertTrue(debug.values.joined().contains("bytes of binary data") || debug.values.joined().contains("5000 bytes in all"))
    }

    func testCURLCommandRepeatsTheRequest() throws {
        var request = URLRequest(url: try XCTUnwrap(URL(string: "https://api.example.test/v1/users?q=a%20b")))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer abc", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(#"{"name":"it's"}"#.utf8)
        XCTAssertEqual(
            CURLCommand.make(for: request, redaction: nil),
            #"curl -X POST -H 'Authorization: Bearer abc' -H 'Content-Type: application/json' --data-binary '{"name":"it'\''s"}' 'https://api.example.test/v1/users?q=a%20b'"#
        )
        XCTAssertTrue(CURLCommand.make(for: request).contains("Authorization: <redacted>"))
    }

    func testCURLCommandBodiesWithAndWithoutRedaction() throws {
        var request = URLRequest(url: try XCTUnwrap(URL(string: "https://api.example.test/login")))
        request.httpMethod = "PUT"
        request.httpBody = Data(#"{"user":"ana","password":"p","nested":{"Access_Token":"t"}}"#.utf8)
        XCTAssertEqual(
            CURLCommand.make(for: request),
            #"curl -X PUT --data-binary '{"nested":{"Access_Token":"<redacted>"},"password":"<redacted>","user":"ana"}' 'https://api.example.test/login'"#
        )
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("user=ana&password=p".utf8)
        XCTAssertTrue(CURLCommand.make(for: request).contains("--data-binary 'user=ana&password=<redacted>'"))
        XCTAssertTrue(CURLCommand.make(for: request, redaction: nil).contains("--data-binary 'user=ana&password=p'"))
        request.httpBody = Data([0xFF, 0xFE, 0x00])
        XCTAssertTrue(CURLCommand.make(for: request).contains("--data-binary '<3 bytes>'"))
        XCTAssertTrue(CURLCommand.make(for: request, redaction: nil).contains("--data-binary '<3 bytes>'"))
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("password=p".utf8)
        XCTAssertTrue(CURLCommand.make(for: request).contains("--data-binary 'password=p'"), "not a form: text as it is")
    }
}
