import EasyNetwork
import EasyNetworkTesting
import EasyNetworkTestSupport
import Foundation
import XCTest

/// An `encodableBody` is encoded on a thread with a large stack (issue 24): nested deeper than
/// 512 levels it fails with a typed `.encoding` error instead of overflowing the worker's
/// stack; a date that is NaN or infinite fails naming its key path; an encoder's error names
/// the key path and the type, never the value.
final class EncodableBodyTests: ServerTestCase {
    /// A request whose body is `body`.
    struct BodyRequest: BaseAPIRequest {
        var body: any Encodable
        var api: String { "/sink" }
        var method: NetworkService.Method { .post }
        var query: NetworkService.QueryType { .json }
        var params: [String: Any]? { nil }
        var headers: [String: String]? { nil }
        var encodableBody: (any Encodable)? { body }
    }

    /// A linked list: each link one level deeper than the one before.
    final class Link: Encodable, @unchecked Sendable {  // unchecked: immutable after init
        let name: String
        let next: Link?

        init(_ next: Link?) {
            name = "x"
            self.next = next
        }

        /// A chain whose deepest value (the last link's `name`) is at level `depth`.
        static func chain(depth: Int) -> Link {
            var link = Link(nil)
            for _ in 0..<(depth - 2) { link = Link(link) }
            return link
        }
    }

    /// Arrays of arrays, `depth` levels counting the leaf.
    struct Nest: Encodable {
        let children: [Nest]

        static func chain(depth: Int) -> Nest {
            var nest = Nest(children: [])
            for _ in 0..<((depth - 2) / 2) { nest = Nest(children: [nest]) }
            return nest
        }
    }

    /// Opens nested containers in a loop, without a recursion of its own.
    struct Burrow: Encodable {
        let levels: Int

        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            for _ in 0..<levels {
                container = container.nestedUnkeyedContainer()
            }
            try container.encode(1)
        }
    }

    struct Stamps: Encodable {
        let user: String
        let dates: [Date]
    }

    struct Secretive: Encodable {
        struct Stats: Encodable {
            let ratio: Double
        }

        let password = "hunter2"
        let stats: Stats
    }

    /// Encodes nothing at all: `JSONEncoder` names the whole value as the invalid one.
    struct Silent: Encodable {
        let password = "hunter2"

        func encode(to encoder: any Encoder) throws {}
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        server.route("/sink") { _ in .json("{}") }
    }

    /// `kind|message` of a failure, `sent` of a success.
    func outcome(_ body: any Encodable, host: HostConfiguration? = nil) -> String {
        switch send(BodyRequest(body: body), host: host, timeout: 30) {
        case .success: return "sent"
        case .failure(let error): return "\(error.kind)|" + (error.message ?? "")
        }
    }

    /// Keeps deep values alive until the child exits: releasing them is itself a recursion.
    nonisolated(unsafe) static var kept: [Any] = []

    func testBodiesNestedFarPastTheLimitFailTyped() throws {
        // Old code: JSONEncoder overflowed the stack (signal 11) at about 8,000 levels.
        let child = try ChildProcess.run(self) {
            let link = Link.chain(depth: 20_000), nest = Nest.chain(depth: 20_000)
            Self.kept = [link, nest]
            return [outcome(link), outcome(nest), outcome(Burrow(levels: 200_000))].joined(separator: "\n")
        }
        XCTAssertFalse(child.crashed, child.summary)
        XCTAssertEqual(child.report?.components(separatedBy: "\n"), [
            "encoding|cannot encode Link: it is nested deeper than 512 levels, the most EasyNetwork encodes",
            "encoding|cannot encode Nest: it is nested deeper than 512 levels, the most EasyNetwork encodes",
            "encoding|cannot encode Burrow: it is nested deeper than 512 levels, the most EasyNetwork encodes",
        ])
        XCTAssertEqual(server.requests.count, 0)
    }

    func testBodiesAtTheLimitAreSentFromAQueueWorkerAndOneLevelDeeperFails() throws {
        let host = makeHost()
        for (depth, expected) in [(512, true), (513, false)] {
            let operation = RequestOperation(request: BodyRequest(body: Link.chain(depth: depth)), configuration: host, responseDecoder: .data)
            NetworkQueue(maxConcurrentOperationCount: 1).addOperation(operation)
            waitUntilFinished(operation, timeout: 30)
            switch operation.result {
            case .success: XCTAssertTrue(expected, "depth \(depth) must fail")
            case .failure(let error):
                XCTAssertFalse(expected, "depth \(depth): \(error)")
                XCTAssertEqual(error.kind, .encoding)
            case nil: XCTFail("no result")
            }
        }
        let body = try XCTUnwrap(server.requests(path: "/sink").first?.body)
        XCTAssertEqual(body.filter { $0 == UInt8(ascii: "{") }.count, 511, "the whole chain was sent")
    }

    func testANonFiniteDateInABodyFailsNamingTheKeyPath() {
        // Old code: with the ISO 8601 strategy it went out as "-4712-01-01T12:00:00Z".
        let host = makeHost()
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        host.jsonEncoder = encoder
        let body = Stamps(user: "eve", dates: [Date(timeIntervalSince1970: 0), Date(), Date(timeIntervalSince1970: .nan)])
        XCTAssertEqual(outcome(body, host: host), "encoding|cannot encode Stamps: the value at 'dates[2]' (Date) is invalid: The date is not finite (NaN or infinity).")
        XCTAssertEqual(outcome(Stamps(user: "eve", dates: [Date(timeIntervalSince1970: 0)]), host: host), "sent")
        XCTAssertEqual(server.requests.count, 1)
    }

    func testEncoderErrorsNameTheKeyPathAndTypeButNeverTheValue() {
        // Old code: "invalid value <the value> at .stats.ratio", and for a body that encodes
        // nothing the whole body, password included.
        XCTAssertEqual(outcome(Secretive(stats: .init(ratio: .nan))),
                       "encoding|cannot encode Secretive: the value at 'stats.ratio' (Double) is invalid: Unable to encode Double.nan directly in JSON.")
        let silent = outcome(Silent())
        XCTAssertTrue(silent.hasPrefix("encoding|cannot encode Silent: the top-level value (Silent) is invalid: "), silent)
        XCTAssertFalse(silent.contains("hunter2"), silent)
        XCTAssertEqual(server.requests.count, 0)
    }
}
