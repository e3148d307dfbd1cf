@testable import EasyNetwork
import EasyNetworkTestSupport
import EasyNetworkTesting
import EasyNetworkPlugins
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Header fields are checked where they enter a request: a value holding CR, LF or NUL,
/// or a name that is not an HTTP token, fails the request with `invalidRequest` and a
/// `HeaderFieldError` naming the header (never its value) before anything is sent.
/// On the code before the check these requests went out: without the header (Linux's
/// `setValue` drops such a value), or with it injected as a second header line
/// (`allHTTPHeaderFields`, a session's `httpAdditionalHeaders`).
final class HeaderFieldCheckTests: ServerTestCase {
    private let secret = "s3cr3t-value"

    /// The refusal of a request that must fail before anything is sent.
    private func refusal(_ result: Result<Any?, NetworkError>, file: StaticString = #filePath, line: UInt = #line) -> HeaderFieldError? {
        guard let error = failure(of: result, file: file, line: line) else { return nil }
        XCTAssertEqual(error.kind, .invalidRequest, "\(error)", file: file, line: line)
        XCTAssertEqual(server.requests.count, 0, "nothing may be sent", file: file, line: line)
        for text in [error.description, error.localizedDescription, "\(error.errorUserInfo)", "\(error.underlyingError as Any)"] {
            XCTAssertFalse(text.contains(secret), "the value leaked: \(text)", file: file, line: line)
        }
        let header = error.underlyingError as? HeaderFieldError
        XCTAssertNotNil(header, "underlyingError: \(String(describing: error.underlyingError))", file: file, line: line)
        return header
    }

    func testRequestHeaderValueWithTrailingNewlineFailsNamingTheHeader() {
        let header = refusal(send(TestRequest("/echo", headers: ["X-Api-Key": secret + "\n"])))
        XCTAssertEqual(header?.name, "X-Api-Key")
        XCTAssertEqual(header?.source, "the request's headers")
        XCTAssertEqual(header?.problem, "its value ends with a line feed (LF)")
        XCTAssertEqual(header?.isInvalidName, false)
    }

    func testRequestHeaderValueWithCarriageReturnOrNULInsideFails() {
        XCTAssertEqual(refusal(send(TestRequest("/echo", headers: ["X-A": secret + "\r\nX-Injected: 1"])))?.problem,
                       "its value holds a carriage return (CR) and a line feed (LF)")
        XCTAssertEqual(refusal(send(TestRequest("/echo", headers: ["X-A": "a\u{0}" + secret])))?.problem, "its value holds a NUL byte")
        XCTAssertEqual(refusal(send(TestRequest("/echo", headers: ["X-A": "\r\n" + secret])))?.problem,
                       "its value starts with a carriage return (CR) and a line feed (LF)")
    }

    func testRequestHeaderNameThatIsNotATokenFails() {
        for (name, problem) in [("Bad Name", "its name holds a space"), ("Bad:Name", "its name holds a colon"),
                                ("X-\nInjected", "its name holds a line feed (LF)"), ("", "its name is empty"),
                                ("Grüße", "its name holds a character outside ASCII"), ("X(1)", "its name holds a separator such as ( ) , / ; < = > ? @ [ \\ ] { } or \"")] {
            let header = refusal(send(TestRequest("/echo", headers: [name: secret])))
            XCTAssertEqual(header?.name, name)
            XCTAssertEqual(header?.isInvalidName, true)
            XCTAssertEqual(header?.problem, problem)
        }
    }

    func testDescriptionNeverRepeatsANameHoldingALineBreak() {
        let error = failure(of: send(TestRequest("/echo", headers: ["X-\nEvil": "v"])))
        XCTAssertEqual((error?.underlyingError as? HeaderFieldError)?.description, "a header of the request's headers: its name holds a line feed (LF)")
        XCTAssertEqual((error?.underlyingError as? HeaderFieldError)?.name, "X-\nEvil")
        XCTAssertFalse(error?.localizedDescription.contains("\n") ?? true)
    }

    func testHostDefaultHeaderValueWithLineBreakFailsEveryRequest() {
        let host = makeHost()
        host.defaultHeaders = ["X-Client": secret + "\r\n"]
        let header = refusal(send(TestRequest("/echo"), host: host))
        XCTAssertEqual(header?.name, "X-Client")
        XCTAssertEqual(header?.source, "the host's default headers")
        XCTAssertEqual(header?.problem, "its value ends with a carriage return (CR) and a line feed (LF)")
        host.defaultHeaders = ["X-Client": secret]
        XCTAssertNotNil(value(of: send(TestRequest("/echo"), host: host)), "a corrected header works again")
        XCTAssertEqual(server.requests.first?.header("X-Client"), secret)
    }

    func testSessionConfigurationHeadersWithLineBreakFail() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["X-Session": secret + "\r\nX-Injected: yes"]
        let host = HostConfiguration(baseURL: server.baseURL, sessionConfiguration: configuration)
        host.callbackQueue = callbackQueue
        let header = refusal(send(TestRequest("/echo"), host: host))
        XCTAssertEqual(header?.name, "X-Session")
        XCTAssertEqual(header?.source, "the host's session configuration")

        host.setSessionConfiguration(.ephemeral)
        XCTAssertNotNil(value(of: send(TestRequest("/echo"), host: host)))
        host.setSessionConfiguration(configuration)
        server.resetRecords()
        XCTAssertNotNil(refusal(send(TestRequest("/other"), host: host)))
    }

    func testInterceptorThatSetsALineBreakThroughAllHeaderFieldsFails() {
        let host = makeHost()
        host.interceptors = [ClosureInterceptor(adapt: { request, _ in
            var adapted = request
            adapted.allHTTPHeaderFields = ["X-Signature": "sig\r\nX-Injected: yes"]
            return adapted
        })]
        let header = refusal(send(TestRequest("/echo"), host: host))
        XCTAssertEqual(header?.name, "X-Signature")
        XCTAssertEqual(header?.source, "interceptor ClosureInterceptor")
    }

    func testInterceptorThatSetsAnInvalidNameFails() {
        let host = makeHost()
        host.interceptors = [ClosureInterceptor(adapt: { request, _ in
            var adapted = request
            adapted.setValue("1", forHTTPHeaderField: "X Trace")
            return adapted
        })]
        XCTAssertEqual(refusal(send(TestRequest("/echo"), host: host))?.name, "X Trace")
    }

    func testAnInterceptorChecksWhatSetValueWouldDropOnLinux() {
        XCTAssertNil(HeaderFieldError.check(name: "X-Signature", value: "abc"))
        XCTAssertEqual(HeaderFieldError.check(name: "X-Signature", value: secret + "\n")?.problem, "its value ends with a line feed (LF)")
        XCTAssertEqual(HeaderFieldError.check(name: "X Signature", value: "abc")?.isInvalidName, true)
        let host = makeHost()
        let secret = self.secret
        host.interceptors = [ClosureInterceptor(adapt: { request, _ in
            if let refused = HeaderFieldError.check(name: "X-Signature", value: secret + "\n") { throw refused }
            return request
        })]
        let header = refusal(send(TestRequest("/echo"), host: host))
        XCTAssertEqual(header?.name, "X-Signature")
        XCTAssertEqual(header?.source, "an interceptor")
    }

    /// A request the host's `redirectHandler` returns is checked too: the redirect is not
    /// followed, and the request fails naming the header (on the code before the check it
    /// went on to the target, `X-Signed` dropped by Linux's `setValue` or split in two).
    func testARedirectHandlersHeaderWithALineBreakRefusesTheRedirect() {
        server.route("GET", "/moved") { _ in .status(302, headers: ["Location": "/echo"]) }
        for timeout in [30.0, 30.5] {  // a plain task (whole seconds) and a delegate-driven one
            server.resetRecords()
            let host = makeHost()
            let secret = self.secret
            host.redirectHandler = { _, next in
                var next = next
                next.allHTTPHeaderFields = (next.allHTTPHeaderFields ?? [:]).merging(["X-Signed": secret + "\r\nX-Injected: yes"]) { $1 }
                return next
            }
            let result = send(TestRequest("/moved", timeout: timeout), host: host)
            XCTAssertEqual(server.requests(path: "/echo").count, 0, "the redirect is not followed (timeout \(timeout))")
            guard let error = failure(of: result) else { continue }
            XCTAssertEqual(error.kind, .invalidRequest, "\(error)")
            XCTAssertFalse(error.description.contains(secret))
            let header = error.underlyingError as? HeaderFieldError
            XCTAssertEqual(header?.name, "X-Signed")
            XCTAssertEqual(header?.source, "the host's redirectHandler")
        }
    }

    func testValidNamesAndValuesAreSentUnchanged() {
        let name = "X-!#$%&'*+-.^_`|~09az"
        let value = "tab\there, spaces, ünïcödé, \"quotes\""
        XCTAssertNotNil(self.value(of: send(TestRequest("/echo", headers: [name: value]))))
        XCTAssertEqual(server.requests.first?.header(name), value)
    }

    func testTheScanAcceptsExactlyTheTokenCharacters() {
        let token = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in UInt8(0)...UInt8(127) {
            let name = String(decoding: [UInt8(ascii: "a"), byte], as: UTF8.self)
            XCTAssertEqual(HeaderFieldCheck.isValidName(name), token.contains(byte), "byte \(byte)")
            XCTAssertEqual(HeaderFieldCheck.isValidValue(name), ![0, 10, 13].contains(byte), "byte \(byte)")
        }
        XCTAssertFalse(HeaderFieldCheck.isValidName(""))
        XCTAssertTrue(HeaderFieldCheck.isValidValue(""))
    }
}
