// The minimum of Tests/EasyNetworkTests/TestSupport.swift (and the two waits at the end
// of SeedUsageTests.swift) this target uses: a test target cannot import another's
// helpers. Keep in step with those files.
import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request described by its fields, for tests.
struct TestRequest: BaseAPIRequest {
    var api: String
    var method: NetworkService.Method = .get
    var query: NetworkService.QueryType = .path
    var params: [String: Any]?
    var headers: [String: String]?
    var timeout: TimeInterval?
    var absoluteURL: URL?

    init(
        _ api: String,
        method: NetworkService.Method = .get,
        query: NetworkService.QueryType = .path,
        params: [String: Any]? = nil,
        headers: [String: String]? = nil,
        timeout: TimeInterval? = nil,
        absoluteURL: URL? = nil
    ) {
        self.api = api
        self.method = method
        self.query = query
        self.params = params
        self.headers = headers
        self.timeout = timeout
        self.absoluteURL = absoluteURL
    }
}

/// A thread-safe box for values tests collect from callbacks.
final class Collector<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Value] = []

    func append(_ value: Value) {
        lock.lock()
        items.append(value)
        lock.unlock()
    }

    var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }

    var count: Int { values.count }
}

/// A base for tests that talk to a fresh loopback server.
class ServerTestCase: XCTestCase {
    var server: LoopbackServer!
    let callbackQueue = DispatchQueue(label: "EasyNetworkTests.callbacks")

    override func setUpWithError() throws {
        server = try LoopbackServer()
    }

    override func tearDown() {
        server?.stop()
        server = nil
    }

    /// A host for this test's server whose callbacks arrive on `callbackQueue`.
    func makeHost(path: String = "") -> HostConfiguration {
        let host = HostConfiguration(baseURL: server.baseURL.appendingPathComponent(path))
        host.callbackQueue = callbackQueue
        return host
    }
}

extension XCTestCase {
    /// Waits (spinning the run loop) until `operation.isFinished`.
    func waitUntilFinished(_ operation: Operation, timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(timeout)
        while !operation.isFinished && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.005))
        }
        XCTAssertTrue(operation.isFinished, "operation did not finish", file: file, line: line)
    }
}

extension ServerTestCase {
    /// Waits until the server has received `count` requests for `path`.
    func waitForRequests(path: String, count: Int, timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(timeout)
        while server.requests(path: path).count < count && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.005))
        }
        XCTAssertGreaterThanOrEqual(server.requests(path: path).count, count, "server did not see the requests", file: file, line: line)
    }
}
