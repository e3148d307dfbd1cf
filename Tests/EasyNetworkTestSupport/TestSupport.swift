// Helpers shared by every test target of the package (a non-product target: test targets
// cannot import each other's files).
import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request described by its fields, for tests.
public struct TestRequest: BaseAPIRequest {
    public var api: String
    public var method: NetworkService.Method = .get
    public var query: NetworkService.QueryType = .path
    public var params: [String: Any]?
    public var headers: [String: String]?
    public var timeout: TimeInterval?
    public var absoluteURL: URL?

    public init(
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
public final class Collector<Value>: @unchecked Sendable {  // unchecked: `items` guarded by `lock`
    private let lock = NSLock()
    private var items: [Value] = []

    public init() {}

    public func append(_ value: Value) {
        lock.lock()
        items.append(value)
        lock.unlock()
    }

    public var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }

    public var count: Int { values.count }
}

/// A base for tests that talk to a fresh loopback server.
open class ServerTestCase: XCTestCase {
    public var server: LoopbackServer!
    public let callbackQueue = DispatchQueue(label: "EasyNetworkTests.callbacks")

    override open func setUpWithError() throws {
        server = try LoopbackServer()
    }

    override open func tearDown() {
        server?.stop()
        server = nil
    }

    /// A host for this test's server whose callbacks arrive on `callbackQueue`.
    public func makeHost(path: String = "") -> HostConfiguration {
        let host = HostConfiguration(baseURL: server.baseURL.appendingPathComponent(path))
        host.callbackQueue = callbackQueue
        return host
    }

    /// Sends `request` through a fresh service and waits for its result.
    public func send(_ request: BaseAPIRequest, host: HostConfiguration? = nil, timeout: TimeInterval = 10) -> Result<Any?, NetworkError> {
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
    public func failure(of result: Result<Any?, NetworkError>, file: StaticString = #filePath, line: UInt = #line) -> NetworkError? {
        switch result {
        case .success(let value):
            XCTFail("expected a failure, got \(String(describing: value))", file: file, line: line)
            return nil
        case .failure(let error):
            return error
        }
    }

    /// The value of a result that must be a success.
    public func value(of result: Result<Any?, NetworkError>, file: StaticString = #filePath, line: UInt = #line) -> Any? {
        switch result {
        case .success(let value):
            return value
        case .failure(let error):
            XCTFail("expected success, got \(error)", file: file, line: line)
            return nil
        }
    }
}

extension XCTestCase {
    /// Waits (spinning the run loop) until `operation.isFinished`.
    public func waitUntilFinished(_ operation: Operation, timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(timeout)
        while !operation.isFinished && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.005))
        }
        XCTAssertTrue(operation.isFinished, "operation did not finish", file: file, line: line)
    }
}

extension ServerTestCase {
    /// Waits until the server has received `count` requests for `path`.
    public func waitForRequests(path: String, count: Int, timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(timeout)
        while server.requests(path: path).count < count && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.005))
        }
        XCTAssertGreaterThanOrEqual(server.requests(path: path).count, count, "server did not see the requests", file: file, line: line)
    }
}

/// A resource the test server serves with ETag and Range support.
public final class RangeResource: @unchecked Sendable {  // unchecked: `body` and `etag` guarded by `lock`
    private let lock = NSLock()
    public private(set) var body: Data
    private var etag = "\"v1\""
    public var honoursRange = true
    public var slow = false

    public init(size: Int) {
        body = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    }

    public func change() {
        lock.lock(); defer { lock.unlock() }
        body = Data(body.reversed())
        etag = "\"v2\""
    }

    public func reply(to request: RecordedRequest) -> LoopbackReply {
        lock.lock(); defer { lock.unlock() }
        var headers = ["ETag": etag, "Accept-Ranges": "bytes", "Content-Type": "application/octet-stream"]
        var status = 200
        var slice = body
        if honoursRange, let range = request.header("Range"), range.hasPrefix("bytes="),
           request.header("If-Range").map({ $0 == etag }) ?? true {
            let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
            if let start = Int(bounds.first ?? ""), start < body.count {
                let end = min(bounds.count > 1 ? Int(bounds[1]) ?? body.count - 1 : body.count - 1, body.count - 1)
                headers["Content-Range"] = "bytes \(start)-\(end)/\(body.count)"
                status = 206
                slice = body.subdata(in: start..<(end + 1))
            }
        }
        if slow {
            let chunks = stride(from: 0, to: slice.count, by: 32 * 1024).map { slice.subdata(in: $0..<min($0 + 32 * 1024, slice.count)) }
            return .chunked(chunks, status: status, headers: headers, interval: 0.02)
        }
        return .data(slice, status: status, headers: headers)
    }
}
