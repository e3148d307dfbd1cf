import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Unit tests that need no socket: a host whose session is answered by HTTPStubs.
final class StubbedHostTests: XCTestCase {
    private let callbackQueue = DispatchQueue(label: "EasyNetworkTests.stubs")
    private var stubs: HTTPStubs!
    private var host: HostConfiguration!

    override func setUp() {
        stubs = HTTPStubs()
        host = HostConfiguration(baseURL: URL(string: "https://api.example.test/v2"), sessionConfiguration: stubs.makeSessionConfiguration())
        host.callbackQueue = callbackQueue
    }

    private func run<Output>(_ op: RequestOperation<Output>) -> Result<Output, NetworkError>? {
        let done = expectation(description: "done")
        op.completion = { _ in done.fulfill() }
        NetworkQueue(maxConcurrentOperationCount: 1).addOperation(op)
        wait(for: [done], timeout: 5)
        return op.result
    }

    func testStubbedResponseIsMappedWithoutANetwork() throws {
        stubs.stub("GET", path: "/v2/products/1", reply: .json(#"{"id": 1, "name": "tea"}"#))
        let op = RequestOperation(request: TestRequest("/products/1"), configuration: host, decoding: Product.self)
        XCTAssertEqual(try run(op)?.get(), Product(id: 1, name: "tea"))
        XCTAssertEqual(stubs.requests.first?.url?.absoluteString, "https://api.example.test/v2/products/1")
    }

    func testStubbedTransportFailureIsATransportError() {
        stubs.stub(path: "/v2/offline", reply: .failure(URLError(.notConnectedToInternet)))
        let op = RequestOperation<Any?>(request: TestRequest("/offline"), configuration: host) { $0 }
        guard case .failure(let error)? = run(op) else { return XCTFail("must fail") }
        XCTAssertEqual(error.kind, .transport)
        XCTAssertEqual(error.urlError?.code, .notConnectedToInternet)
    }

    func testStubbedStatusAndBodyReachTheError() {
        stubs.stub("POST", path: "/v2/orders", reply: .json(#"{"msg": "out of stock"}"#, status: 409))
        let op = RequestOperation<Any?>(request: TestRequest("/orders", method: .post, query: .json, params: ["sku": "A1"]), configuration: host) { $0 }
        guard case .failure(let error)? = run(op) else { return XCTFail("must fail") }
        XCTAssertEqual(error.statusCode, 409)
        XCTAssertEqual(error.serverMessage, "out of stock")
        let body = stubs.requests.first?.httpBody.flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: String]
        XCTAssertEqual(body, ["sku": "A1"])
    }

    func testCancellingADelayedStubReportsCancellation() {
        stubs.stub(path: "/v2/slow", reply: .json("{}", delay: 5))
        let op = RequestOperation<Any?>(request: TestRequest("/slow"), configuration: host) { $0 }
        let done = expectation(description: "done")
        op.completion = { _ in done.fulfill() }
        NetworkQueue().addOperation(op)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { op.cancel() }
        wait(for: [done], timeout: 2)
        if case .failure(let error)? = op.result {
            XCTAssertTrue(error.isCancelled)
        } else {
            XCTFail("must be cancelled")
        }
    }

    func testReplacingTheSessionConfigurationSwitchesStubSets() throws {
        let other = HTTPStubs()
        stubs.stub(path: "/v2/who", reply: .json(#"{"id": 1, "name": "first"}"#))
        other.stub(path: "/v2/who", reply: .json(#"{"id": 2, "name": "second"}"#))
        XCTAssertEqual(try run(RequestOperation(request: TestRequest("/who"), configuration: host, decoding: Product.self))?.get().name, "first")
        host.setSessionConfiguration(other.makeSessionConfiguration())
        XCTAssertEqual(try run(RequestOperation(request: TestRequest("/who"), configuration: host, decoding: Product.self))?.get().name, "second")
    }
}
