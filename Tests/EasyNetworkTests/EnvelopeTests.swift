import EasyNetwork
import EasyNetworkEnvelopes
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct User: Codable, Equatable, Sendable {
    let id: Int
    let name: String
}

struct GetUser: APIRequest {
    typealias Response = User
    let path: String
    var api: String { path }
}

final class EnvelopeTests: ServerTestCase {
    private let queue = NetworkQueue(maxConcurrentOperationCount: 4)

    private func route(_ path: String, _ json: String, status: Int = 200, contentType: String = "application/json") {
        server.route("GET", path) { _ in .status(status, headers: ["Content-Type": contentType], body: Data(json.utf8)) }
    }

    private func fetch<Output>(_ decoder: ResponseDecoder<Output>, _ path: String, host: HostConfiguration) -> Result<Output, NetworkError>? {
        let op = RequestOperation(request: TestRequest(path), configuration: host, responseDecoder: decoder)
        let done = expectation(description: path)
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: 5)
        return op.result
    }

    private func businessError<Output>(_ result: Result<Output, NetworkError>?, file: StaticString = #filePath, line: UInt = #line) -> NetworkError? {
        guard case .failure(let error)? = result else {
            XCTFail("expected a failure", file: file, line: line)
            return nil
        }
        return error
    }

    // MARK: success flag + data

    func testSuccessFlagConvention() throws {
        let host = makeHost()
        host.envelope = .successFlag()
        route("/ok", #"{"success": true, "data": {"id": 1, "name": "ana"}, "message": ""}"#)
        route("/fail", #"{"success": false, "code": "E42", "message": "quota exceeded", "traceId": "t-1", "data": {"left": 0}}"#)
        XCTAssertEqual(try fetch(.decodable(), "/ok", host: host).map { try $0.get() } as User?, User(id: 1, name: "ana"))
        let error = businessError(fetch(ResponseDecoder<User>.decodable(), "/fail", host: host))
        XCTAssertEqual(error?.kind, .business)
        XCTAssertEqual(error?.businessCode, "E42")
        XCTAssertEqual(error?.serverMessage, "quota exceeded")
        XCTAssertEqual(error?.traceId, "t-1")
        XCTAssertEqual(error?.statusCode, 200)
        XCTAssertEqual(error?.payload.map { String(decoding: $0, as: UTF8.self) }, #"{"left":0}"#)
        XCTAssertEqual((error.map { $0 as NSError })?.code, 8)
        // The envelope's message is body text: counted in the sentences, not quoted.
        XCTAssertEqual(error?.localizedDescription, "The server reported a failure (code E42): the server sent a message of 14 characters (not quoted).")
        XCTAssertEqual(error?.message, "the server sent a message of 14 characters (not quoted)")
    }

    // MARK: code == 0 + msg + data (seeds 000, 002, 003)

    func testCodeZeroConventionWithJSONAndMapperResults() throws {
        let host = makeHost()
        host.envelope = .codeEquals(0)
        route("/items", #"{"code": 0, "msg": "", "data": [{"id": 1, "name": "tea"}], "traceId": "abc"}"#)
        route("/denied", #"{"code": 8888, "msg": "not allowed", "data": null, "traceId": "xyz"}"#)
        let json = try fetch(.json, "/items", host: host)?.get()
        XCTAssertEqual((json as? [[String: Any]])?.first?["name"] as? String, "tea")
        let mapped = try fetch(.map { try ArrayResponseMapper<Product>.process($0, mapper: ProductMapper.process) }, "/items", host: host)?.get()
        XCTAssertEqual(mapped, [Product(id: 1, name: "tea")])
        let error = businessError(fetch(ResponseDecoder<Any?>.json, "/denied", host: host))
        XCTAssertEqual(error?.businessCode, "8888")
        XCTAssertEqual(error?.serverMessage, "not allowed")
        XCTAssertEqual(error?.traceId, "xyz")
        XCTAssertNil(error?.payload)
        XCTAssertFalse(error?.isUnauthorized ?? true)
    }

    func testStringCodesCompareAsText() throws {
        let host = makeHost()
        host.envelope = .codeEquals("000")
        route("/ok", #"{"code": "000", "data": {"id": 2, "name": "bo"}}"#)
        route("/no", #"{"code": "001", "msg": "bad"}"#)
        XCTAssertEqual(try fetch(.decodable(), "/ok", host: host)?.get(), User(id: 2, name: "bo"))
        XCTAssertEqual(businessError(fetch(ResponseDecoder<User>.decodable(), "/no", host: host))?.businessCode, "001")
    }

    // MARK: errcode / errmsg with the payload at the top level (seed 004)

    func testErrcodeConventionWithTopLevelPayload() throws {
        let host = makeHost()
        host.envelope = .codeEquals(0, codeKey: "errcode", messageKey: "errmsg", payloadKey: nil)
        route("/token", #"{"errcode": 0, "errmsg": "ok", "id": 3, "name": "cy"}"#)
        route("/bad", #"{"errcode": 40001, "errmsg": "invalid credential"}"#)
        XCTAssertEqual(try fetch(.decodable(), "/token", host: host)?.get(), User(id: 3, name: "cy"))
        let error = businessError(fetch(ResponseDecoder<User>.decodable(), "/bad", host: host))
        XCTAssertEqual(error?.businessCode, "40001")
        XCTAssertEqual(error?.serverMessage, "invalid credential")
    }

    /// A code rule whose key is not the reported code's (`codeKey`) judges a `Decodable`
    /// result as it judges JSON: by the rule's own key.
    func testACodeRuleReadsItsOwnKeyWhenTheReportedCodeIsAnother() throws {
        let host = makeHost()
        host.envelope = ResponseEnvelope(success: .code("status", equals: ["0"]), codeKey: "errcode")
        route("/ok", #"{"status": 0, "errcode": 7, "data": {"id": 8, "name": "ko"}}"#)
        route("/no", #"{"status": 1, "errcode": 9}"#)
        XCTAssertEqual(try fetch(.decodable(), "/ok", host: host)?.get(), User(id: 8, name: "ko"))
        XCTAssertNotNil(try fetch(.json, "/ok", host: host)?.get())
        XCTAssertEqual(businessError(fetch(ResponseDecoder<User>.decodable(), "/no", host: host))?.businessCode, "9")
    }

    func testCustomRule() throws {
        let host = makeHost()
        host.envelope = ResponseEnvelope(success: .custom { $0["status"] as? String == "OK" }, payloadKey: "result", codeKey: "status")
        route("/ok", #"{"status": "OK", "result": {"id": 4, "name": "di"}}"#)
        route("/no", #"{"status": "DENIED", "message": "nope"}"#)
        XCTAssertEqual(try fetch(.decodable(), "/ok", host: host)?.get(), User(id: 4, name: "di"))
        XCTAssertEqual(businessError(fetch(ResponseDecoder<User>.decodable(), "/no", host: host))?.businessCode, "DENIED")
    }

    /// The envelope's properties stay settable values (as in 0.3.0): each setter and
    /// in-place change reaches only the envelope changed, and one changed in place on the
    /// host (`host.envelope?.payloadKey = nil`) is the one its requests read.
    func testEnvelopePropertiesAreSettableValues() throws {
        var changed = ResponseEnvelope.codeEquals(0)
        let original = changed
        changed.payloadKey = nil
        changed.codeKey = "errcode"
        changed.messageKeys.insert("detail", at: 0)
        changed.traceIdKey = nil
        changed.unauthorizedCodes.insert("401")
        changed.success = .code("errcode", equals: ["0"])
        XCTAssertNil(changed.payloadKey)
        XCTAssertEqual(changed.codeKey, "errcode")
        XCTAssertEqual(changed.messageKeys, ["detail", "msg", "message", "errmsg", "error"])
        XCTAssertNil(changed.traceIdKey)
        XCTAssertEqual(changed.unauthorizedCodes, ["401"])
        XCTAssertEqual(original.payloadKey, "data")
        XCTAssertEqual(original.codeKey, "code")
        XCTAssertEqual(original.messageKeys, ["msg", "message", "errmsg", "error"])
        XCTAssertEqual(original.traceIdKey, "traceId")
        XCTAssertEqual(original.unauthorizedCodes, [])
        // The rules as requests judge them (a rule is a reference, read by the module only):
        // the changed one reads `errcode`, the original `code`, each succeeding at "0" only.
        let judged = makeHost()
        route("/errcode", #"{"errcode": 0, "code": 1, "id": 5, "name": "ev"}"#)
        route("/code", #"{"errcode": 1, "code": 0, "data": {"id": 6, "name": "or"}}"#)
        judged.envelope = changed
        XCTAssertEqual(try fetch(.decodable(), "/errcode", host: judged)?.get(), User(id: 5, name: "ev"))
        XCTAssertEqual(businessError(fetch(ResponseDecoder<User>.decodable(), "/code", host: judged))?.businessCode, "1")
        judged.envelope = original
        XCTAssertEqual(try fetch(.decodable(), "/code", host: judged)?.get(), User(id: 6, name: "or"))
        XCTAssertEqual(businessError(fetch(ResponseDecoder<User>.decodable(), "/errcode", host: judged))?.businessCode, "1")

        let host = makeHost()
        host.envelope = .codeEquals(0)
        host.envelope?.payloadKey = nil
        XCTAssertNil(host.envelope?.payloadKey)
        route("/top", #"{"code": 0, "id": 5, "name": "ev"}"#)
        XCTAssertEqual(try fetch(.decodable(), "/top", host: host)?.get(), User(id: 5, name: "ev"))
    }

    // MARK: broken envelopes

    func testMissingPayloadKeyIsADecodingErrorForValuesButFineForVoidAndJSON() throws {
        let host = makeHost()
        host.envelope = .codeEquals(0)
        route("/empty", #"{"code": 0, "msg": "done"}"#)
        let error = businessError(fetch(ResponseDecoder<User>.decodable(), "/empty", host: host))
        XCTAssertEqual(error?.kind, .decoding)
        XCTAssertTrue(error?.message?.contains("'data'") ?? false, error?.message ?? "")
        XCTAssertNoThrow(try fetch(.void, "/empty", host: host)?.get())
        XCTAssertNil(try fetch(.json, "/empty", host: host)?.get() ?? nil)
    }

    func testPayloadOfTheWrongTypeNamesTheKey() {
        let host = makeHost()
        host.envelope = .codeEquals(0)
        route("/wrong", #"{"code": 0, "data": {"id": "seven", "name": "x"}}"#)
        let error = businessError(fetch(ResponseDecoder<User>.decodable(), "/wrong", host: host))
        XCTAssertEqual(error?.kind, .decoding)
        XCTAssertTrue(error?.message?.contains(".id") ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message?.contains("User") ?? false, error?.message ?? "")
    }

    func testNonJSONBodyWithJSONContentTypeIsADecodingError() {
        let host = makeHost()
        host.envelope = .codeEquals(0)
        route("/html", "<html>gateway error</html>")
        let error = businessError(fetch(ResponseDecoder<User>.decodable(), "/html", host: host))
        XCTAssertEqual(error?.kind, .decoding)
        XCTAssertFalse(error?.message?.contains("gateway error") ?? true, error?.message ?? "")
        XCTAssertTrue(error?.message?.contains("Body: 26 bytes") ?? false, error?.message ?? "")
        XCTAssertEqual(error?.bodySnippet, "<html>gateway error</html>")
        route("/array", "[1, 2]")
        XCTAssertEqual(businessError(fetch(ResponseDecoder<Any?>.json, "/array", host: host))?.kind, .decoding)
    }

    func testRawDataAndStringSkipTheEnvelope() throws {
        let host = makeHost()
        host.envelope = .codeEquals(0)
        route("/file", "plain bytes", contentType: "text/plain")
        XCTAssertEqual(try fetch(.string, "/file", host: host)?.get(), "plain bytes")
        XCTAssertEqual(try fetch(.data, "/file", host: host)?.get(), Data("plain bytes".utf8))
    }

    // MARK: unauthorized business codes

    func testUnauthorizedBusinessCodeRaisesThe401Signal() {
        let host = makeHost()
        host.envelope = .codeEquals(0, unauthorizedCodes: ["401001", "401002"])
        route("/expired", #"{"code": 401002, "msg": "token expired"}"#)
        let seen = Collector<NetworkError>()
        let observer = NotificationCenter.default.addObserver(forName: HostConfiguration.unauthorizedOperationNotification, object: host, queue: nil) { note in
            if let error = note.userInfo?["error"] as? NetworkError { seen.append(error) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let error = businessError(fetch(ResponseDecoder<User>.decodable(), "/expired", host: host))
        XCTAssertTrue(error?.isUnauthorized ?? false)
        XCTAssertEqual(error?.statusCode, 200)
        XCTAssertEqual(seen.count, 1)
        XCTAssertEqual(seen.values.first?.businessCode, "401002")
    }

    func testSeedStyleServiceGetsThePayload() {
        let host = makeHost()
        host.envelope = .codeEquals(0)
        route("/profile", #"{"code": 0, "data": {"id": 9, "name": "seed"}}"#)
        let result = send(TestRequest("/profile"), host: host)
        XCTAssertEqual((value(of: result) as? [String: Any])?["name"] as? String, "seed")
    }

    func testOptionalPayloadMayBeMissing() throws {
        let host = makeHost()
        host.envelope = .codeEquals(0)
        route("/none", #"{"code": 0, "data": null}"#)
        XCTAssertNil(try fetch(ResponseDecoder<User?>.decodable(), "/none", host: host)?.get() ?? nil)
    }

    func testEnvelopeKeysWorkWithASnakeCaseDecoder() throws {
        let host = makeHost()
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        host.jsonDecoder = decoder
        host.envelope = ResponseEnvelope(success: .code("err_code", equals: ["0"]), payloadKey: "result_data", traceIdKey: "trace_id")
        route("/ok", #"{"err_code": 0, "result_data": {"id": 1, "name": "snake"}}"#)
        route("/no", #"{"err_code": 12, "msg": "bad", "trace_id": "t-9"}"#)
        XCTAssertEqual(try fetch(.decodable(), "/ok", host: host)?.get(), User(id: 1, name: "snake"))
        let error = businessError(fetch(ResponseDecoder<User>.decodable(), "/no", host: host))
        XCTAssertEqual(error?.businessCode, "12")
        XCTAssertEqual(error?.traceId, "t-9")
        XCTAssertEqual(error?.serverMessage, "bad")
    }

    /// A response made in memory, for reading the envelope without a server.
    private func response(_ json: String, _ envelope: ResponseEnvelope, decoder: JSONDecoder = JSONDecoder()) throws -> NetworkResponse {
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1/envelope"))
        let http = try XCTUnwrap(HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil))
        return NetworkResponse(request: URLRequest(url: url), httpResponse: http, data: Data(json.utf8), envelope: envelope, jsonDecoder: decoder)
    }

    func testSnakeCaseEnvelopeKeysFindCamelCaseFieldsWhenDecoding() throws {
        // "_msg" has one part, so it is looked up only as written and must not find "msg".
        let envelope = ResponseEnvelope(
            success: .code("err__code_", equals: ["0"]), payloadKey: "result_data",
            messageKeys: ["_msg", "_error_text"], traceIdKey: "trace_id_é_ça"
        )
        let failed = try response(#"{"errCode": 7, "msg": "wrong", "errorText": "nope", "traceIdÉÇa": "t-1"}"#, envelope)
        XCTAssertThrowsError(try failed.decode(User.self)) { error in
            let error = error as? NetworkError
            XCTAssertEqual(error?.kind, .business)
            XCTAssertEqual(error?.businessCode, "7")
            XCTAssertEqual(error?.serverMessage, "nope")
            XCTAssertEqual(error?.traceId, "t-1")
        }
        let ok = try response(#"{"errCode": 0, "resultData": {"id": 1, "name": "a"}}"#, envelope)
        XCTAssertEqual(try ok.decode(User.self), User(id: 1, name: "a"))
    }

    func testCustomRuleSeesEveryFieldButThePayloadAsJSONWhenDecoding() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        // Top-level names as the decoder converts them; values as JSONSerialization gives
        // them, nested keys as the body has them.
        let envelope = ResponseEnvelope(success: .custom { fields in
            guard fields["data"] == nil, fields["status"] as? String == "OK",
                  let meta = fields["metaInfo"] as? [String: Any], meta["inner_key"] as? String == "yes",
                  let tags = fields["tags"] as? [Any], tags.count == 6,
                  tags[0] as? Int == 1, tags[1] as? String == "a", tags[2] is NSNull,
                  tags[3] as? Bool == true, tags[4] as? Double == 2.5,
                  (tags[5] as? [String: Any])?["k"] as? [Any] != nil
            else { return false }
            return true
        })
        let body = #"{"status": "OK", "meta_info": {"inner_key": "yes"}, "tags": [1, "a", null, true, 2.5, {"k": []}], "data": {"id": 5, "name": "e"}}"#
        XCTAssertEqual(try response(body, envelope, decoder: decoder).decode(User.self), User(id: 5, name: "e"))
        let refused = body.replacingOccurrences(of: #""yes""#, with: #""no""#)
        XCTAssertEqual((try? response(refused, envelope, decoder: decoder).decode(User.self)) ?? nil, nil)
    }

    // MARK: one reader decides codes for every path

    /// Whether each path (Decodable, `.json`, a ResponseMapper through
    /// `request(_:success:failure:)`) succeeded for `body` under `host`'s envelope.
    private func outcomes(_ body: String, host: HostConfiguration, path: String) -> [String: Bool] {
        route(path, body)
        let mapped: Result<Product, Error> = send(TestRequest(path), host: host).mapError { $0 as Error }.flatMap { json in
            Result { try ProductMapper.process(json) }
        }
        let results: [String: Result<Any?, Error>?] = [
            "decodable": fetch(ResponseDecoder<User>.decodable(), path, host: host).map { $0.map { $0 as Any? }.mapError { $0 as Error } },
            "json": fetch(ResponseDecoder<Any?>.json, path, host: host).map { $0.mapError { $0 as Error } },
            "mapper": mapped.map { $0 as Any? },
        ]
        return results.mapValues { result in
            switch result {
            case .success?: return true
            case .failure(let error)?:
                XCTAssertEqual((error as? NetworkError)?.kind, .business, "\(path) \(body): \(error)")
                return false
            case nil:
                XCTFail("no result for \(path)")
                return false
            }
        }
    }

    func testCodeValuesDecideTheSameOnEveryPath() {
        let host = makeHost()
        let data = #""data": {"id": 1, "name": "tea"}"#
        let table: [(code: String, zero: Bool, text000: Bool)] = [
            ("0", true, false),
            (#""0""#, true, false),
            ("0.0", true, false),
            ("false", false, false),
            ("true", false, false),
            ("1", false, false),
            ("null", false, false),
            ("", false, false),            // code missing
            (#"{"value": 0}"#, false, false),
            ("[0]", false, false),
            ("[]", false, false),
            (#""000""#, false, true),
        ]
        for (index, row) in table.enumerated() {
            let body = row.code.isEmpty ? "{\(data)}" : #"{"code": \#(row.code), \#(data)}"#
            host.envelope = .codeEquals(0)
            let zero = outcomes(body, host: host, path: "/zero\(index)")
            XCTAssertEqual(zero, ["decodable": row.zero, "json": row.zero, "mapper": row.zero], ".codeEquals(0) with \(body)")
            host.envelope = .codeEquals("000")
            let text = outcomes(body, host: host, path: "/text\(index)")
            XCTAssertEqual(text, ["decodable": row.text000, "json": row.text000, "mapper": row.text000], ".codeEquals(\"000\") with \(body)")
        }
    }

    func testSuccessFlagIsABooleanNotANumberOnEveryPath() {
        let host = makeHost()
        host.envelope = .successFlag()
        let data = #""data": {"id": 1, "name": "tea"}"#
        let table: [(flag: String, success: Bool)] = [
            ("true", true), (#""true""#, true), ("false", false), ("1", false), ("0", false), ("null", false), ("", false),
        ]
        for (index, row) in table.enumerated() {
            let body = row.flag.isEmpty ? "{\(data)}" : #"{"success": \#(row.flag), \#(data)}"#
            let seen = outcomes(body, host: host, path: "/flag\(index)")
            XCTAssertEqual(seen, ["decodable": row.success, "json": row.success, "mapper": row.success], body)
        }
    }

    func testABooleanCodeIsReportedAsABoolean() {
        let host = makeHost()
        host.envelope = .codeEquals(0, unauthorizedCodes: ["0"])
        route("/false", #"{"code": false, "msg": "no"}"#)
        let decoded = businessError(fetch(ResponseDecoder<User>.decodable(), "/false", host: host))
        let json = businessError(fetch(ResponseDecoder<Any?>.json, "/false", host: host))
        XCTAssertEqual(decoded?.businessCode, "false")
        XCTAssertEqual(json?.businessCode, "false")
        XCTAssertFalse(decoded?.isUnauthorized ?? true)
        XCTAssertFalse(json?.isUnauthorized ?? true)
    }
}
