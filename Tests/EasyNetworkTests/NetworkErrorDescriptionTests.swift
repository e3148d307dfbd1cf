@testable import EasyNetwork
import EasyNetworkEnvelopes
import EasyNetworkDownloads
import EasyNetworkOrchestration
import EasyNetworkPlugins
import EasyNetworkRetry
import EasyNetworkTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Every `NetworkError` description reads as sentences: no doubled punctuation ("for
/// 0.5 s.."), no sentence glued onto the last ("at the top level Body: {…}"), one full stop
/// at the end. Checked for every kind with and without a message and attempts, and for the
/// messages the library itself makes, produced for real against a loopback server.
final class NetworkErrorDescriptionTests: ServerTestCase {
    private struct Product: Decodable, Sendable { let id: Int; let name: String }

    private struct Timed: APIRequest {
        typealias Response = Data
        var api: String
        var timeout: TimeInterval?
        var totalTimeout: TimeInterval?
    }

    private struct NaNBody: APIRequest {
        typealias Response = Data
        var api: String { "/echo" }
        var method: NetworkService.Method { .post }
        var encodableBody: (any Encodable)? { ["value": Double.nan] }
    }

    private struct Refused: LocalizedError {
        var errorDescription: String? { "The signature key is missing." }
    }

    // MARK: The checks

    /// What is wrong with `text` as one or more sentences, or `nil`.
    static func problem(in text: String) -> String? {
        for doubled in ["..", ". .", ".:", ":.", ",.", ";.", ".,", "::", ": :", " ,", " :", "  "] where text.contains(doubled) {
            return "doubled punctuation or spacing '\(doubled)'"
        }
        // A stop after a space (" ." ending a sentence); " .id" is a key path.
        if text.hasSuffix(" .") || text.contains(" . ") {
            return "a full stop after a space"
        }
        guard let last = text.last, ".!?…".contains(last) || text.hasSuffix(".)") else {
            return "does not end a sentence"
        }
        // A capitalized word that starts sentences, right after a word with no stop between.
        let starters = ["Body", "The", "No", "An", "A", "Pass", "Call", "Give", "Set"]
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        for (previous, word) in zip(words, words.dropFirst()) {
            let bare = word.prefix { $0.isLetter }
            guard starters.contains(String(bare)), word.count == bare.count || !word.dropFirst(bare.count).first!.isLetter else { continue }
            if let end = previous.last, end.isLetter || end.isNumber || "\"')]}".contains(end) {
                return "glued sentence at '\(previous) \(word)'"
            }
        }
        // A lower-case word right after a full stop starts a sentence without a capital,
        // which is how two clauses glued by a stray "." read.
        for (previous, word) in zip(words, words.dropFirst()) where previous.hasSuffix(".") && !previous.hasSuffix("e.g.") && !previous.hasSuffix("i.e.") {
            if let first = word.first, first.isLowercase, previous.count > 2 {
                return "a sentence starts in lower case at '\(previous) \(word)'"
            }
        }
        return nil
    }

    private func assertReadsWell(_ error: NetworkError?, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let error else { return XCTFail("\(label): no error", file: file, line: line) }
        let text = error.localizedDescription
        if let problem = Self.problem(in: text) {
            XCTFail("\(label): \(problem): \(text)", file: file, line: line)
        }
        XCTAssertEqual(text, error.errorDescription, label, file: file, line: line)
    }

    func testTheCheckFindsTheFaultsIssue20Met() {
        XCTAssertNotNil(Self.problem(in: "The network request failed: No byte was sent or received for 0.5 s.."))
        XCTAssertNotNil(Self.problem(in: #"The response could not be read: cannot decode P: missing key 'id' at the top level Body: {"x": 1}."#))
        XCTAssertNotNil(Self.problem(in: "The request is invalid"))
        XCTAssertNotNil(Self.problem(in: "The request failed: timed out. (after 2 attempts)"))
        XCTAssertNil(Self.problem(in: #"The response could not be read: missing key 'id' at the top level. Body: {"x": 1}."#))
        XCTAssertNil(Self.problem(in: "The server answered with status 503 Service Unavailable (after 3 attempts): down."))
    }

    // MARK: Every kind, with and without a message and attempts

    func testEveryKindWithAndWithoutMessageAndAttemptsReadsAsSentences() {
        let messages: [String?] = [nil, "", "it broke", "it broke.", "it broke:", "The given data was not valid JSON.", "trailing space. ", "etc…"]
        for kind in NetworkError.Kind.allCases {
            for message in messages {
                for attempts in [nil, 1, 3] {
                    var error = NetworkError(kind: kind, message: message, statusCode: kind == .unacceptableStatus ? 503 : nil,
                                             underlyingError: kind == .transport ? URLError(.timedOut) : nil,
                                             businessCode: kind == .business ? "8888" : nil)
                    if let attempts { error = Self.withAttempts(error, attempts) }
                    assertReadsWell(error, "\(kind), message \(message.map { "'\($0)'" } ?? "nil"), attempts \(attempts.map(String.init) ?? "nil")")
                }
            }
            assertReadsWell(NetworkError(kind: kind), "\(kind), bare")
        }
    }

    func testNotConfiguredNamesBothChoices() {
        let text = NetworkError(kind: .notConfigured).localizedDescription
        XCTAssertTrue(text.contains("configuration: HostConfiguration(baseURL:)"), text)
        XCTAssertTrue(text.contains("HostConfiguration.baseURL(_:)"), text)
        XCTAssertTrue(text.contains("shared host"), text)
    }

    // MARK: The messages the library makes

    func testTimeoutsRetriesAndStatusesProducedForReal() {
        let host = makeHost()
        // Idle timeout: URLError's own words end with a full stop ("for 0.5 s.").
        let idle = result(of: Timed(api: "/delay/3000", timeout: 0.5), host: host)
        XCTAssertTrue(idle?.isTimeout ?? false)
        XCTAssertTrue(idle?.localizedDescription.contains("for 0.5 s") ?? false, idle?.localizedDescription ?? "")
        assertReadsWell(idle, "idle timeout")
        assertReadsWell(result(of: Timed(api: "/trickle?bytes=40&interval_ms=50", timeout: 5, totalTimeout: 0.3), host: host), "total timeout")

        server.route("GET", "/down") { _ in .json(#"{"message": "down for maintenance."}"#, status: 503) }
        let retrying = makeHost()
        retrying.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: 0, jitter: 0, honorsRetryAfter: false)
        let status = result(of: Timed(api: "/down"), host: retrying)
        XCTAssertEqual(status?.attempts, 2)
        assertReadsWell(status, "503 after 2 attempts with a message counted")
        // A host that quotes server messages: the server's stop is not doubled. (A host of
        // its own: the first host's retry budget is spent by now, so it would not retry.)
        let quoting = makeHost()
        quoting.retryPolicy = retrying.retryPolicy
        quoting.errorSentencesQuoteServerMessages = true
        let quoted = result(of: Timed(api: "/down"), host: quoting)
        XCTAssertTrue(quoted?.localizedDescription.hasSuffix("(after 2 attempts): down for maintenance.") ?? false, quoted?.localizedDescription ?? "")
        assertReadsWell(quoted, "503 after 2 attempts with a quoted message ending in a stop")
        assertReadsWell(result(of: Timed(api: "/status/404"), host: host), "404")
        assertReadsWell(result(of: Timed(api: "/status/401?challenge=1"), host: host), "401 with a challenge")
        assertReadsWell(result(of: Timed(api: "/status/500?message=db%20down"), host: host), "500 with a message")
        assertReadsWell(result(of: Timed(api: "/close"), host: host), "closed connection")
        assertReadsWell(result(of: Timed(api: "/truncated"), host: retrying), "body cut short, retried")
    }

    func testDecodingMessagesProducedForReal() {
        server.route("GET", "/object") { _ in .json(#"{"x": 1}"#) }
        server.route("GET", "/mismatch") { _ in .json(#"{"id": "seven", "name": "Ana"}"#) }
        server.route("GET", "/latin") { _ in .text("caf\u{e9}", contentType: "text/plain; charset=us-ascii") }
        let host = makeHost()
        let missing = decode(Product.self, "/object", host)
        XCTAssertTrue(missing?.localizedDescription.contains("at the top level. Body: 8 bytes (not quoted).") ?? false, missing?.localizedDescription ?? "")
        assertReadsWell(missing, "missing key at the top level, with the body's size")
        assertReadsWell(decode(Product.self, "/mismatch", host), "type mismatch")
        assertReadsWell(decode(Product.self, "/malformed-json", host), "malformed JSON")
        assertReadsWell(decode(Product.self, "/no-content", host), "no body")
        assertReadsWell(decode([Int].self, "/large/600", host), "binary body, its size")
        let text = RequestOperation(request: TestRequest("/latin"), configuration: host, responseDecoder: .string)
        assertReadsWell(run(text), "text in a charset it is not valid in")
    }

    func testRequestEncodingAuthenticationAndOrchestrationMessagesProducedForReal() async throws {
        let host = makeHost()
        assertReadsWell(result(of: TestRequest("/echo"), host: HostConfiguration(baseURL: nil)), "not configured")
        assertReadsWell(result(of: TestRequest("/echo"), host: HostConfiguration(baseURL: URL(string: "localhost:8765"))), "unusable base URL")
        assertReadsWell(result(of: TestRequest("/echo", method: .post, query: .json, params: ["n": Double.nan]), host: host), "NaN in .json params")
        assertReadsWell(result(of: NaNBody(), host: host), "NaN in an Encodable body")

        let refusing = makeHost()
        refusing.interceptors = [ClosureInterceptor(adapt: { _, _ in throw Refused() })]
        assertReadsWell(result(of: TestRequest("/echo"), host: refusing), "an interceptor refused")

        server.route("GET", "/v2/order") { _ in .json(#"{"code": 8888, "msg": "item out of stock.", "data": null}"#) }
        let envelope = makeHost()
        envelope.envelope = .codeEquals(0)
        assertReadsWell(result(of: TestRequest("/v2/order"), host: envelope), "business failure")
        envelope.errorSentencesQuoteServerMessages = true
        assertReadsWell(result(of: TestRequest("/v2/order"), host: envelope), "business failure, its message quoted")

        server.route("GET", "/private") { _ in .status(401) }
        let tokenHost = makeHost()
        tokenHost.authenticator = TokenAuthenticator(token: "old") { throw Refused() }
        assertReadsWell(result(of: TestRequest("/private"), host: tokenHost), "refresh failed")
        let slowRefresh = makeHost()
        slowRefresh.authenticator = TokenAuthenticator(token: "old", refreshTimeout: 0.2) { _ in }
        assertReadsWell(result(of: TestRequest("/private"), host: slowRefresh), "refresh timed out")

        let cancelled = RequestOperation(request: TestRequest("/delay/2000"), configuration: host, responseDecoder: .data)
        cancelled.cancel()
        assertReadsWell(run(cancelled), "cancelled")

        struct Step: APIRequest { typealias Response = Data; var api: String }
        do {
            _ = try await RequestChain(Step(api: "/echo"), configuration: host)
                .then { _ -> Step? in throw Refused() }
                .run(on: NetworkQueue())
            XCTFail("the chain must fail")
        } catch let error as ChainError {
            assertReadsWell(error.error, "a chain step that could not build its request")
        }

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("descriptions-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let existing = folder.appendingPathComponent("a.bin")
        try Data("old".utf8).write(to: existing)
        let refused = DownloadOperation(request: TestRequest("/large/10"), configuration: host, to: existing, options: DownloadOptions(existing: .fail))
        assertReadsWell(downloadError(refused), "a download onto an existing file")
        let missing = DownloadOperation(request: TestRequest("/status/404"), configuration: host, to: folder.appendingPathComponent("b.bin"))
        assertReadsWell(downloadError(missing), "a download of a 404")
    }

    // MARK: Helpers

    private static func withAttempts(_ error: NetworkError, _ attempts: Int) -> NetworkError {
        var copy = error
        copy = copy.ending(attempts: attempts, quoting: false)    // set by the library for a request's error; produced for real below
        return copy
    }

    private func result(of request: BaseAPIRequest, host: HostConfiguration) -> NetworkError? {
        host.callbackQueue = callbackQueue
        return run(RequestOperation(request: request, configuration: host, responseDecoder: .json))
    }

    private func decode<T: Decodable & Sendable>(_ type: T.Type, _ api: String, _ host: HostConfiguration) -> NetworkError? {
        run(RequestOperation(request: TestRequest(api), configuration: host, decoding: type))
    }

    private func run<Output>(_ operation: RequestOperation<Output>) -> NetworkError? {
        let queue = NetworkQueue()
        queue.addOperation(operation)
        waitUntilFinished(operation, timeout: 10)
        guard case .failure(let error)? = operation.result else {
            XCTFail("expected a failure, got \(String(describing: operation.result))")
            return nil
        }
        return error
    }

    private func downloadError(_ operation: DownloadOperation) -> NetworkError? {
        let queue = NetworkQueue()
        queue.addOperation(operation)
        waitUntilFinished(operation, timeout: 10)
        guard case .failure(let error)? = operation.result else {
            XCTFail("expected a failure, got \(String(describing: operation.result))")
            return nil
        }
        return error
    }
}
