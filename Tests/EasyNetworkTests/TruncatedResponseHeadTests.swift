import EasyNetwork
import EasyNetworkTesting
import EasyNetworkTestSupport
import Foundation
import XCTest

/// A response head the server cuts off (the connection closes after a status line, before
/// the blank line that ends the head) stops the whole process on Linux, inside
/// swift-corelibs-foundation, before anything of EasyNetwork runs (the *EasyNetwork on Linux* article, LinuxNotes.md):
///
///     FoundationNetworking/NativeProtocol.swift:240: Fatal error: Transfer completed,
///     but there's no response.
///
/// libcurl (7.88.1 here) counts the status line's bytes as "something was read", so it
/// reports the cut transfer as complete without an error; a header line that starts with a
/// NUL byte ends its header parsing the same way. corelibs then finds no complete head and
/// traps. No session delegate callback comes first, so EasyNetwork cannot guard it.
///
/// These tests document that in a child process. When a toolchain (corelibs, or the
/// libcurl it uses) fixes it, the first test fails: then delete the README paragraph and
/// make it expect a typed transport error, as the third test does for a NUL inside a name.
final class TruncatedResponseHeadTests: ServerTestCase {
    static let message = "Transfer completed, but there's no response."

    /// The outcome of one request answered with `reply`.
    func outcome(_ reply: LoopbackReply) -> String {
        server.route("/cut") { _ in reply }
        switch send(TestRequest("/cut", method: .post, query: .json, params: ["a": 1]), timeout: 30) {
        case .success: return "sent"
        case .failure(let error): return "\(error.kind)|\(error.urlError?.code.rawValue ?? 0)"
        }
    }

    func testAHeadCutOffAfterItsStatusLineStopsTheProcessOnLinux() throws {
        // The smallest reply that does it: 17 bytes, then a normal close.
        let child = try ChildProcess.run(self) {
            outcome(.raw(Data("HTTP/1.1 200 OK\r\n".utf8)))
        }
        XCTAssertTrue(child.crashed, """
            The reply no longer stops the process (it gave \(child.report ?? "?")): the toolchain fixed \
            swift-corelibs-foundation's "\(Self.message)" trap. Delete its paragraph in README's \
            Linux notes and make this test expect a typed transport error.
            """)
        if child.crashed {
            XCTAssertTrue(child.output.contains(Self.message), child.output.suffix(2000).description)
        }
    }

    func testTheFuzzersReplyStopsTheProcessOnLinuxForTheSameReason() throws {
        // Issue 24's reply: status 152, a header name with a NUL byte (at the start of its
        // line) and a body starting with a byte-order mark. The NUL is what matters.
        let child = try ChildProcess.run(self) {
            outcome(.status(152, headers: ["\u{0}x": "v"], body: Data([0xEF, 0xBB, 0xBF]) + Data("{}".utf8)))
        }
        XCTAssertTrue(child.crashed, "no longer stops the process (it gave \(child.report ?? "?")): see the test above")
        if child.crashed {
            XCTAssertTrue(child.output.contains(Self.message), child.output.suffix(2000).description)
        }
    }

    func testANulInsideAHeaderNameIsATypedTransportError() {
        // libcurl refuses it ("Nul byte in header"): the process goes on.
        XCTAssertEqual(outcome(.status(152, headers: ["x\u{0}y": "v"], body: Data("{}".utf8))), "transport|-1")
        XCTAssertEqual(outcome(.raw(Data("HTTP/1.1 200 OK\r\nx\u{0}y: v\r\n\r\n".utf8))), "transport|-1")
    }
}
