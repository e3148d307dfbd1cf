import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an error's sentences hand to the host app's logs and crash reports: never a byte of
/// the response body nor a header value (issue 29); the type, the key path and the body's
/// size stay, and the body itself stays on the error (`data`, `bodySnippet`) for debugging.
final class NetworkErrorPrivacyTests: ServerTestCase {
    private let queue = NetworkQueue(maxConcurrentOperationCount: 4)

    /// A profile answer with an email and a token in it.
    private static let profile = #"{"id": 7, "name": "Ana Lima", "email": "ana@example.com", "token": "tok_5f2a9cd1e8", "role": "owner-7f3e"}"#

    private struct WrongShape: Decodable, Sendable {
        let id: String
        let email: String
    }

    private struct GetWrongShape: APIRequest {
        typealias Response = WrongShape
        var api: String { "/profile" }
    }

    private enum Role: String, Decodable, Sendable {
        case admin, member
    }

    private struct Member: Decodable, Sendable {
        let id: Int
        let role: Role
    }

    private struct GetMember: APIRequest {
        typealias Response = Member
        var api: String { "/profile" }
    }

    private struct GetText: APIRequest {
        typealias Response = String
        var api: String { "/text" }
    }

    private struct ProfileItem: ParsedItem {
        let nickname: String
    }

    private final class ProfileMapper: ResponseMapper<ProfileItem>, ResponseMapperProtocol {
        static func process(_ obj: Any?) throws -> ProfileItem {
            try process(obj, parse: { json in (json["nickname"] as? String).map(ProfileItem.init) })
        }
    }

    /// A mapper that decodes with its own `JSONDecoder`: the `DecodingError` reaches the
    /// core, not `NetworkResponse.decode`.
    private enum MemberDecodingMapper: ResponseMapperProtocol {
        static func process(_ obj: Any?) throws -> Member {
            try JSONDecoder().decode(Member.self, from: JSONSerialization.data(withJSONObject: obj ?? [:]))
        }
    }

    // MARK: Helpers

    /// Every text the error hands out: its descriptions, message and reason, and every
    /// string in its `NSError` user info (nested errors, arrays and dictionaries walked).
    private static func texts(of error: NetworkError) -> [String] {
        var texts = [
            error.description, error.localizedDescription, error.errorDescription ?? "", error.failureReason ?? "",
            error.message ?? "", String(describing: error), "\(error)",
        ]
        let nsError = error as NSError
        texts += [nsError.localizedDescription, nsError.localizedFailureReason ?? "", nsError.description]
        var seen = 0
        func walk(_ value: Any) {
            seen += 1
            guard seen < 1_000 else { return }
            switch value {
            case let text as String:
                texts.append(text)
            case let nested as NSError:
                texts.append(nested.localizedDescription)
                texts.append(nested.localizedFailureReason ?? "")
                nested.userInfo.values.forEach(walk)
            case let array as [Any]:
                array.forEach(walk)
            case let dictionary as [String: Any]:
                dictionary.values.forEach(walk)
            default:
                texts.append(String(describing: value))
            }
        }
        nsError.userInfo.values.forEach(walk)
        return texts
    }

    /// Fails when a text of `error` holds any 8 bytes in a row of `body` (the key path, such
    /// as `.id`, is shorter), or any of `secrets`.
    private func assertQuotesNothing(of body: String, in error: NetworkError?, except allowed: [String] = [], secrets: [String] = [],
                                     file: StaticString = #filePath, line: UInt = #line) {
        guard let error else { return XCTFail("no error", file: file, line: line) }
        let bytes = Array(body.utf8)
        for text in Self.texts(of: error) {
            var text = text
            for words in allowed {
                text = text.replacingOccurrences(of: words, with: "")
            }
            var found = secrets.filter(text.contains)
            if bytes.count >= 8, found.isEmpty {
                found = (0...(bytes.count - 8)).lazy.map { String(decoding: bytes[$0..<($0 + 8)], as: UTF8.self) }.filter(text.contains).prefix(1).map { $0 }
            }
            // One failure per error: the first text that quotes the body.
            guard found.isEmpty else {
                return XCTFail("\(found) of the body is in: \(text)", file: file, line: line)
            }
        }
    }

    private func send<R: APIRequest>(_ request: R, host: HostConfiguration) -> Result<R.Response, NetworkError>? {
        let done = expectation(description: "send")
        let results = Collector<Result<R.Response, NetworkError>>()
        queue.send(request, configuration: host) { result in
            results.append(result)
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        return results.values.first
    }

    private func error<Output>(_ result: Result<Output, NetworkError>?, file: StaticString = #filePath, line: UInt = #line) -> NetworkError? {
        guard case .failure(let error)? = result else {
            XCTFail("expected a failure", file: file, line: line)
            return nil
        }
        return error
    }

    private func answer(_ body: Data, path: String = "/profile", status: Int = 200, contentType: String = "application/json") {
        server.route("GET", path) { _ in .status(status, headers: ["Content-Type": contentType], body: body) }
    }

    // MARK: Decoding

    func testATypedRequestWhoseAnswerDoesNotDecodeQuotesNoByteOfTheBody() throws {
        answer(Data(Self.profile.utf8))
        let failure = try XCTUnwrap(error(send(GetWrongShape(), host: makeHost())))
        XCTAssertEqual(failure.kind, .decoding)
        assertQuotesNothing(of: Self.profile, in: failure, secrets: ["ana@example.com", "tok_5f2a9cd1e8", "Ana Lima"])
        // What stays: the type, the key path and the size of the body.
        for text in [failure.localizedDescription, failure.description, failure.message ?? ""] {
            XCTAssertTrue(text.contains("WrongShape"), text)
            XCTAssertTrue(text.contains("expected String at .id"), text)
            XCTAssertTrue(text.contains("\(Self.profile.utf8.count) bytes"), text)
        }
        // The body stays on the error, for debugging.
        XCTAssertEqual(failure.data, Data(Self.profile.utf8))
        XCTAssertEqual(failure.bodySnippet, Self.profile)
    }

    func testTheSnippetIsTheFirst200BytesAsText() throws {
        let long = Data(("{\"token\": \"" + String(repeating: "t", count: 300) + "\"}").utf8)
        let cut = NetworkError(kind: .decoding, data: long)
        XCTAssertEqual(cut.bodySnippet, String(decoding: long.prefix(200), as: UTF8.self) + "…")
        XCTAssertFalse(cut.localizedDescription.contains("tttttttt"), cut.localizedDescription)
        let binary = NetworkError(kind: .decoding, data: Data([0x41, 0xFF, 0x42]))
        XCTAssertEqual(binary.bodySnippet, "A\u{FFFD}B")
        XCTAssertNil(NetworkError(kind: .decoding, data: Data()).bodySnippet)
        XCTAssertNil(NetworkError(kind: .decoding).bodySnippet)
    }

    func testAValueTheTypeRefusesIsNotQuotedFromTheDecodersDescription() throws {
        // Foundation's own description of this failure quotes the value ("Cannot initialize
        // Role from invalid String value owner-7f3e").
        answer(Data(Self.profile.utf8))
        let failure = try XCTUnwrap(error(send(GetMember(), host: makeHost())))
        XCTAssertEqual(failure.kind, .decoding)
        assertQuotesNothing(of: Self.profile, in: failure, secrets: ["owner-7f3e", "ana@example.com"])
        XCTAssertTrue(failure.localizedDescription.contains("Member"), failure.localizedDescription)
        XCTAssertTrue(failure.localizedDescription.contains(".role"), failure.localizedDescription)
    }

    func testAMapperFailureQuotesNoByteOfTheBody() throws {
        answer(Data(Self.profile.utf8))
        let operation = RequestOperation(request: TestRequest("/profile"), configuration: makeHost(), mapper: ProfileMapper.self)
        let done = expectation(description: "mapped")
        operation.completion = { _ in done.fulfill() }
        queue.addOperation(operation)
        wait(for: [done], timeout: 5)
        let failure = try XCTUnwrap(error(operation.result))
        XCTAssertEqual(failure.kind, .decoding)
        XCTAssertEqual(failure.underlyingError as? ResponseMapperError, .missingAttribute)
        assertQuotesNothing(of: Self.profile, in: failure, secrets: ["ana@example.com", "tok_5f2a9cd1e8"])
        XCTAssertTrue(failure.localizedDescription.contains("lacks an attribute"), failure.localizedDescription)
        XCTAssertTrue(failure.localizedDescription.contains("\(Self.profile.utf8.count) bytes"), failure.localizedDescription)
    }

    func testAMappersOwnDecodingErrorQuotesNoByteOfTheBody() throws {
        // Foundation's description of this failure quotes the value ("owner-7f3e").
        answer(Data(Self.profile.utf8))
        let operation = RequestOperation(request: TestRequest("/profile"), configuration: makeHost(), mapper: MemberDecodingMapper.self)
        let done = expectation(description: "mapped")
        operation.completion = { _ in done.fulfill() }
        queue.addOperation(operation)
        wait(for: [done], timeout: 5)
        let failure = try XCTUnwrap(error(operation.result))
        XCTAssertEqual(failure.kind, .decoding)
        XCTAssertTrue(failure.underlyingError is DecodingError)
        assertQuotesNothing(of: Self.profile, in: failure, secrets: ["owner-7f3e", "ana@example.com", "tok_5f2a9cd1e8"])
        XCTAssertTrue(failure.localizedDescription.contains("\(Self.profile.utf8.count) bytes"), failure.localizedDescription)
    }

    func testABodyThatIsNotJSONIsNotQuoted() throws {
        let page = "<html><body>Signed in as ana@example.com, session tok_5f2a9cd1e8</body></html>"
        answer(Data(page.utf8), contentType: "text/html")
        // The seed's JSON path (`success(Any?)`), a Decodable type, and a mapper.
        let json = failure(of: send(TestRequest("/profile")))
        let decodable = error(send(GetWrongShape(), host: makeHost()))
        let mapped = RequestOperation(request: TestRequest("/profile"), configuration: makeHost(), mapper: ProfileMapper.self)
        let done = expectation(description: "mapped")
        mapped.completion = { _ in done.fulfill() }
        queue.addOperation(mapped)
        wait(for: [done], timeout: 5)
        for failure in [json, decodable, error(mapped.result)] {
            XCTAssertEqual(failure?.kind, .decoding)
            assertQuotesNothing(of: page, in: failure, secrets: ["ana@example.com", "tok_5f2a9cd1e8"])
            XCTAssertTrue(failure?.localizedDescription.contains("\(page.utf8.count) bytes") ?? false, failure?.localizedDescription ?? "")
        }
        XCTAssertTrue(json?.localizedDescription.contains("not valid JSON") ?? false, json?.localizedDescription ?? "")
    }

    func testTextInAnotherEncodingNamesNeitherTheBodyNorTheHeader() throws {
        // Not UTF-8 (a lone 0xFF), in a charset the library does not know, which the header names.
        let body = Data("token=tok_5f2a9cd1e8 ".utf8) + Data([0xFF, 0xFE, 0x41])
        server.route("GET", "/text") { _ in .status(200, headers: ["Content-Type": "text/plain; charset=x-secret-9c1b"], body: body) }
        let failure = try XCTUnwrap(error(send(GetText(), host: makeHost())))
        XCTAssertEqual(failure.kind, .decoding)
        assertQuotesNothing(of: String(decoding: body, as: UTF8.self), in: failure, secrets: ["tok_5f2a9cd1e8", "x-secret-9c1b"])
        XCTAssertTrue(failure.localizedDescription.contains("not valid UTF-8 text"), failure.localizedDescription)
        XCTAssertTrue(failure.localizedDescription.contains("\(body.count) bytes"), failure.localizedDescription)
        XCTAssertEqual(failure.bodySnippet, "token=tok_5f2a9cd1e8 \u{FFFD}\u{FFFD}A")
        // A charset the library knows is named by its own name.
        server.route("GET", "/text") { _ in .status(200, headers: ["Content-Type": "text/plain; charset=\"US-ASCII\""], body: body) }
        let ascii = try XCTUnwrap(error(send(GetText(), host: makeHost())))
        XCTAssertTrue(ascii.localizedDescription.contains("not valid us-ascii text"), ascii.localizedDescription)
    }

    // MARK: Envelopes and statuses

    /// A server's message that carries a token and an email: what some backends answer.
    private static let secretMessage = "token abc123 is not valid for ana@example.com"

    func testABusinessErrorCountsTheServersMessageAndQuotesNoByteOfTheBody() throws {
        // The envelope's message and trace id are body bytes too: counted, never quoted.
        let body = #"{"code": 8888, "msg": "token abc123 is not valid for ana@example.com", "traceId": "trace-ana-5f2a9cd1", "data": {"email": "ana@example.com", "token": "tok_5f2a9cd1e8"}}"#
        answer(Data(body.utf8))
        let host = makeHost()
        host.envelope = .codeEquals(0)
        let failure = try XCTUnwrap(error(send(GetWrongShape(), host: host)))
        XCTAssertEqual(failure.kind, .business)
        assertQuotesNothing(of: body, in: failure, secrets: ["abc123", "ana@example.com", "tok_5f2a9cd1e8", "trace-ana"])
        XCTAssertEqual(failure.message, "the server sent a message of 45 characters (not quoted)")
        XCTAssertEqual(failure.localizedDescription, "The server reported a failure (code 8888): the server sent a message of 45 characters (not quoted).")
        // The properties keep what the envelope said.
        XCTAssertEqual(failure.serverMessage, Self.secretMessage)
        XCTAssertEqual(failure.businessCode, "8888")
        XCTAssertEqual(failure.traceId, "trace-ana-5f2a9cd1")
        XCTAssertNotNil(failure.payload)
    }

    func testAnEnvelopeWhosePayloadDoesNotDecodeQuotesNoByteOfTheBody() throws {
        let body = #"{"code": 0, "data": {"id": 7, "email": "ana@example.com", "token": "tok_5f2a9cd1e8"}}"#
        answer(Data(body.utf8))
        let host = makeHost()
        host.envelope = .codeEquals(0)
        let failure = try XCTUnwrap(error(send(GetWrongShape(), host: host)))
        XCTAssertEqual(failure.kind, .decoding)
        assertQuotesNothing(of: body, in: failure, secrets: ["ana@example.com", "tok_5f2a9cd1e8"])
        XCTAssertTrue(failure.localizedDescription.contains("expected String at .data.id"), failure.localizedDescription)
        // Not an envelope at all.
        answer(Data(#"["ana@example.com", "tok_5f2a9cd1e8"]"#.utf8))
        let notEnvelope = try XCTUnwrap(error(send(GetWrongShape(), host: host)))
        assertQuotesNothing(of: #"["ana@example.com", "tok_5f2a9cd1e8"]"#, in: notEnvelope, secrets: ["ana@example.com"])
        XCTAssertTrue(notEnvelope.localizedDescription.contains("found an array"), notEnvelope.localizedDescription)
    }

    func testAStatusErrorCountsTheServersMessageAndQuotesNoByteOfTheBody() throws {
        let bare = #"{"email": "ana@example.com", "token": "tok_5f2a9cd1e8"}"#
        answer(Data(bare.utf8), status: 422)
        let unnamed = try XCTUnwrap(error(send(GetWrongShape(), host: makeHost())))
        XCTAssertEqual(unnamed.statusCode, 422)
        XCTAssertNil(unnamed.message)
        assertQuotesNothing(of: bare, in: unnamed, secrets: ["ana@example.com", "tok_5f2a9cd1e8"])
        let body = #"{"message": "token abc123 is not valid for ana@example.com"}"#
        answer(Data(body.utf8), status: 403)
        let named = try XCTUnwrap(error(send(GetWrongShape(), host: makeHost())))
        XCTAssertEqual(named.statusCode, 403)
        assertQuotesNothing(of: body, in: named, secrets: ["abc123", "ana@example.com"])
        XCTAssertEqual(named.message, "the server sent a message of 45 characters (not quoted)")
        XCTAssertEqual(named.serverMessage, Self.secretMessage)
        XCTAssertNil(unnamed.serverMessage)
        XCTAssertEqual(named.localizedDescription, "The server answered with status 403 " + HTTPURLResponse.localizedString(forStatusCode: 403)
            + ": the server sent a message of 45 characters (not quoted).")
        // The other keys the message is read from, nested too; one character is one character.
        for (json, count) in [(#"{"error": {"message": "token abc123 is not valid for ana@example.com"}}"#, "45 characters"),
                              (#"{"msg": "token abc123 is not valid for ana@example.com"}"#, "45 characters"),
                              (#"{"error_description": "ü"}"#, "1 character"), (#"{"detail": "token abc123 é ana@example.com"}"#, "30 characters")] {
            answer(Data(json.utf8), status: 400)
            let failure = try XCTUnwrap(error(send(GetWrongShape(), host: makeHost())))
            // The key `error_description` shares 8 bytes with the user info's key `NSLocalizedDescription`.
            assertQuotesNothing(of: json, in: failure, except: ["NSLocalizedDescription"], secrets: ["abc123", "ana@example.com", "ü"])
            XCTAssertEqual(failure.message, "the server sent a message of \(count) (not quoted)")
        }
    }

    // MARK: The host's opt-in

    func testAHostThatOptsInQuotesTheServersMessageAndAnotherHostDoesNot() throws {
        let body = #"{"message": "token abc123 is not valid for ana@example.com"}"#
        answer(Data(body.utf8), status: 403)
        let quoting = makeHost(), plain = makeHost()
        XCTAssertFalse(quoting.errorSentencesQuoteServerMessages)
        quoting.errorSentencesQuoteServerMessages = true
        let handled = Collector<NetworkError>()
        quoting.errorHandler = { _, error in handled.append(error) }
        let quoted = try XCTUnwrap(error(send(GetWrongShape(), host: quoting)))
        // As before 1.0: the message, the reason and the sentences hold the server's text.
        XCTAssertEqual(quoted.message, Self.secretMessage)
        XCTAssertEqual(quoted.failureReason, Self.secretMessage)
        XCTAssertEqual(quoted.serverMessage, Self.secretMessage)
        XCTAssertEqual(quoted.localizedDescription, "The server answered with status 403 " + HTTPURLResponse.localizedString(forStatusCode: 403)
            + ": token abc123 is not valid for ana@example.com.")
        XCTAssertTrue(quoted.description.contains(Self.secretMessage), quoted.description)
        XCTAssertEqual((quoted as NSError).localizedFailureReason, Self.secretMessage)
        // The host's error handler gets the same error.
        XCTAssertEqual(handled.values.first?.message, Self.secretMessage)
        // A second SDK's host in the same process keeps the default, at the same time.
        let other = try XCTUnwrap(error(send(GetWrongShape(), host: plain)))
        assertQuotesNothing(of: body, in: other, secrets: ["abc123", "ana@example.com"])
        XCTAssertEqual(other.serverMessage, Self.secretMessage)
        // Turned off again, the next request of the host quotes nothing.
        quoting.errorSentencesQuoteServerMessages = false
        let again = try XCTUnwrap(error(send(GetWrongShape(), host: quoting)))
        assertQuotesNothing(of: body, in: again, secrets: ["abc123", "ana@example.com"])
    }

    func testTheOptInHoldsOnTheAwaitedPath() async throws {
        answer(Data(#"{"message": "token abc123 is not valid for ana@example.com"}"#.utf8), status: 403)
        let host = makeHost()
        host.errorSentencesQuoteServerMessages = true
        do {
            _ = try await queue.send(GetWrongShape(), configuration: host)
            XCTFail("expected a failure")
        } catch let awaited as NetworkError {
            XCTAssertEqual(awaited.message, Self.secretMessage)
            XCTAssertTrue(awaited.localizedDescription.contains(Self.secretMessage), awaited.localizedDescription)
        }
        host.errorSentencesQuoteServerMessages = false
        do {
            _ = try await queue.send(GetWrongShape(), configuration: host)
            XCTFail("expected a failure")
        } catch let awaited as NetworkError {
            XCTAssertEqual(awaited.message, "the server sent a message of 45 characters (not quoted)")
            XCTAssertEqual(awaited.serverMessage, Self.secretMessage)
        }
    }

    func testAHostThatOptsInQuotesTheEnvelopesMessageAndTraceIdButNoOtherByte() throws {
        let body = #"{"code": 8888, "msg": "token abc123 is not valid for ana@example.com", "traceId": "trace-ana-5f2a9cd1", "data": {"email": "bob@example.com", "token": "tok_5f2a9cd1e8"}}"#
        answer(Data(body.utf8))
        let host = makeHost()
        host.envelope = .codeEquals(0)
        host.errorSentencesQuoteServerMessages = true
        let failure = try XCTUnwrap(error(send(GetWrongShape(), host: host)))
        XCTAssertEqual(failure.kind, .business)
        XCTAssertEqual(failure.message, Self.secretMessage)
        XCTAssertEqual(failure.localizedDescription, "The server reported a failure (code 8888): token abc123 is not valid for ana@example.com.")
        XCTAssertEqual(failure.errorUserInfo["traceId"] as? String, "trace-ana-5f2a9cd1")
        // Nothing else of the body: the payload never is.
        assertQuotesNothing(of: body, in: failure, except: [Self.secretMessage, "trace-ana-5f2a9cd1"], secrets: ["bob@example.com", "tok_5f2a9cd1e8"])
        // The default host has no trace id in its user info.
        host.errorSentencesQuoteServerMessages = false
        let plain = try XCTUnwrap(error(send(GetWrongShape(), host: host)))
        XCTAssertNil(plain.errorUserInfo["traceId"])
        XCTAssertEqual(plain.traceId, "trace-ana-5f2a9cd1")
    }

    func testTheOptInQuotesNoOtherByteOfTheBody() throws {
        // A decoding error has no server message: the opt-in changes nothing of it.
        answer(Data(Self.profile.utf8))
        let host = makeHost()
        host.errorSentencesQuoteServerMessages = true
        let failure = try XCTUnwrap(error(send(GetWrongShape(), host: host)))
        XCTAssertEqual(failure.kind, .decoding)
        XCTAssertNil(failure.serverMessage)
        assertQuotesNothing(of: Self.profile, in: failure, secrets: ["ana@example.com", "tok_5f2a9cd1e8", "Ana Lima"])
        // A status error whose body has no message: nothing to quote.
        let bare = #"{"email": "ana@example.com", "token": "tok_5f2a9cd1e8"}"#
        answer(Data(bare.utf8), status: 422)
        let unnamed = try XCTUnwrap(error(send(GetWrongShape(), host: host)))
        XCTAssertNil(unnamed.message)
        assertQuotesNothing(of: bare, in: unnamed, secrets: ["ana@example.com", "tok_5f2a9cd1e8"])
    }

    func testAnErrorMadeByHandKeepsItsMessageAndHasNoServerMessage() {
        // A test's or a custom mapper's message and trace id are its own words: shown as given.
        let made = NetworkError(kind: .unacceptableStatus, message: "token abc123 is not valid", statusCode: 403)
        XCTAssertEqual(made.message, "token abc123 is not valid")
        XCTAssertNil(made.serverMessage)
        let business = NetworkError(kind: .business, message: "quota exceeded", businessCode: "E42", traceId: "t-1")
        XCTAssertEqual(business.message, "quota exceeded")
        XCTAssertNil(business.serverMessage)
        XCTAssertEqual(business.errorUserInfo["traceId"] as? String, "t-1")
    }
}
