// A copy of Tests/EasyNetworkTests/TestSupport.swift: a test target cannot import another's
// helpers. Keep in step with that file.
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

    /// Sends `request` through a fresh service and waits for its result.
    func send(_ request: BaseAPIRequest, host: HostConfiguration? = nil, timeout: TimeInterval = 10) -> Result<Any?, NetworkError> {
        let host = host ?? makeHost()
        let done = expectation(description: "request")
        let outcome = Collector<Result<Any?, NetworkError>>()
        EasyNetworkService(host).request(request, success: { json in
            outcome.append(.success(json))
            done.fulfill()
        }, failure: { error in
            outcome.append(.failure(error))
            done.fulfill()
        })
        wait(for: [done], timeout: timeout)
        XCTAssertEqual(outcome.count, 1, "exactly one callback")
        return outcome.values.first ?? .failure(NetworkError(kind: .transport, message: "no callback"))
    }

    /// The error of a result that must be a failure.
    func failure(of result: Result<Any?, NetworkError>, file: StaticString = #filePath, line: UInt = #line) -> NetworkError? {
        switch result {
        case .success(let value):
            XCTFail("expected a failure, got \(String(describing: value))", file: file, line: line)
            return nil
        case .failure(let error):
            return error
        }
    }

    /// The value of a result that must be a success.
    func value(of result: Result<Any?, NetworkError>, file: StaticString = #filePath, line: UInt = #line) -> Any? {
        switch result {
        case .success(let value):
            return value
        case .failure(let error):
            XCTFail("expected success, got \(error)", file: file, line: line)
            return nil
        }
    }
}
