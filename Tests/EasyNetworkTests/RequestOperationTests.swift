import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest

struct Product: Decodable, Equatable, ParsedItem {
    let id: Int
    let name: String
}

final class ProductMapper: ResponseMapper<Product>, ResponseMapperProtocol {
    static func process(_ obj: Any?) throws -> Product {
        try process(obj) { json in
            guard let id = json["id"] as? Int, let name = json["name"] as? String else { return nil }
            return Product(id: id, name: name)
        }
    }
}

final class RequestOperationTests: ServerTestCase {
    private let queue = NetworkQueue(maxConcurrentOperationCount: 4)

    override func setUpWithError() throws {
        try super.setUpWithError()
        server.route("GET", "/products") { _ in .json(#"[{"id": 1, "name": "tea"}, {"id": 2, "name": "cup"}]"#) }
        server.route("GET", "/products/1") { _ in .json(#"{"id": 1, "name": "tea"}"#) }
        server.route("GET", "/broken-products") { _ in .json(#"[{"id": 1, "name": "tea"}, {"id": "two", "name": "cup"}]"#) }
    }

    private func run<Output>(_ op: RequestOperation<Output>) -> [Result<Output, NetworkError>] {
        let results = Collector<Result<Output, NetworkError>>()
        let order = Collector<String>()
        op.success = { _ in order.append("success") }
        op.failure = { _ in order.append("failure") }
        op.completion = { [callbackQueue] result in
            dispatchPrecondition(condition: .onQueue(callbackQueue))
            order.append("completion")
            results.append(result)
        }
        queue.addOperation(op)
        waitUntilFinished(op)
        callbackQueue.sync {}
        XCTAssertEqual(order.values.count, 2)
        XCTAssertEqual(order.values.last, "completion")
        XCTAssertEqual(results.count, 1)
        return results.values
    }

    func testMapperTypeMapsTheJSONObject() throws {
        let op = RequestOperation(request: TestRequest("/products/1"), configuration: makeHost(), mapper: ProductMapper.self)
        XCTAssertEqual(try run(op).first?.get(), Product(id: 1, name: "tea"))
        XCTAssertEqual(try op.result?.get(), Product(id: 1, name: "tea"))
    }

    func testArrayResponseMapperThroughAClosure() throws {
        let op = RequestOperation(request: TestRequest("/products"), configuration: makeHost()) { json in
            try ArrayResponseMapper<Product>.process(json, mapper: ProductMapper.process)
        }
        XCTAssertEqual(try run(op).first?.get(), [Product(id: 1, name: "tea"), Product(id: 2, name: "cup")])
    }

    func testArrayMapperErrorsAreDecodingErrors() {
        let op = RequestOperation(request: TestRequest("/broken-products"), configuration: makeHost()) { json in
            try ArrayResponseMapper<Product>.process(json, mapper: ProductMapper.process)
        }
        guard case .failure(let error)? = run(op).first else { return XCTFail("must fail") }
        XCTAssertEqual(error.kind, .decoding)
        XCTAssertEqual(error.underlyingError as? ResponseMapperError, .missingAttribute)
    }

    func testDecodableRequest() throws {
        let op = RequestOperation(request: TestRequest("/products"), configuration: makeHost(), decoding: [Product].self)
        XCTAssertEqual(try run(op).first?.get().map(\.name), ["tea", "cup"])
    }

    func testDecodingErrorNamesTypeKeyPathAndBodySizeAndKeepsTheBodyOffTheMessage() {
        let op = RequestOperation(request: TestRequest("/broken-products"), configuration: makeHost(), decoding: [Product].self)
        guard case .failure(let error)? = run(op).first else { return XCTFail("must fail") }
        XCTAssertEqual(error.kind, .decoding)
        let message = error.message ?? ""
        XCTAssertTrue(message.contains("Array<Product>") || message.contains("[Product]"), message)
        XCTAssertTrue(message.contains("[1].id"), message)
        XCTAssertTrue(message.hasSuffix("Body: \(error.data?.count ?? -1) bytes (not quoted)"), message)
        XCTAssertFalse(message.contains(#""two""#), message)
        XCTAssertTrue(error.bodySnippet?.contains(#""two""#) ?? false, error.bodySnippet ?? "")
        XCTAssertTrue(error.underlyingError is DecodingError)
    }

    func testCancelledBeforeStartReportsCancellationOnceAndSendsNothing() {
        let op = RequestOperation(request: TestRequest("/products/1"), configuration: makeHost(), decoding: Product.self)
        op.cancel()
        guard case .failure(let error)? = run(op).first else { return XCTFail("must fail") }
        XCTAssertTrue(error.isCancelled)
        XCTAssertTrue(op.result.map { if case .failure = $0 { return true } else { return false } } ?? false)
        XCTAssertEqual(server.requests.count, 0)
    }

    func testCancelledInFlightReportsCancellationOnce() {
        let op = RequestOperation<Any?>(request: TestRequest("/delay/3000"), configuration: makeHost()) { $0 }
        let results = Collector<Result<Any?, NetworkError>>()
        op.completion = { results.append($0) }
        queue.addOperation(op)
        waitForRequests(path: "/delay/3000", count: 1)
        op.cancel()
        op.cancel()
        waitUntilFinished(op, timeout: 2)
        callbackQueue.sync {}
        XCTAssertEqual(results.count, 1)
        if case .failure(let error)? = results.values.first {
            XCTAssertTrue(error.isCancelled)
        } else {
            XCTFail("must be cancelled")
        }
    }

    func testCancelAfterFinishChangesNothing() throws {
        let op = RequestOperation(request: TestRequest("/products/1"), configuration: makeHost(), mapper: ProductMapper.self)
        XCTAssertEqual(try run(op).first?.get().id, 1)
        op.cancel()
        callbackQueue.sync {}
        XCTAssertEqual(try op.result?.get().id, 1)
    }

    func testTransformSeesStatusHeadersAndRawData() throws {
        let op = RequestOperation(request: TestRequest("/echo"), configuration: makeHost()) { response in
            (response.statusCode, response.header("content-type") ?? "", response.data.count)
        }
        let value = try run(op).first?.get()
        XCTAssertEqual(value?.0, 200)
        XCTAssertEqual(value?.1, "application/json")
        XCTAssertGreaterThan(value?.2 ?? 0, 0)
    }

    func testCallbackPropertiesCanBeSetFromManyThreadsWhileItDelivers() {
        // The properties are kept under the operation's lock: setting them from many
        // threads while the result is delivered calls back exactly once (run it under
        // ThreadSanitizer to see the lock at work).
        let op = RequestOperation(request: TestRequest("/products/1"), configuration: makeHost(), decoding: Product.self)
        let calls = Collector<String>()
        // Set before the operation is queued: a request that ends before the first of the
        // threads below still has one of each to call.
        op.success = { _ in calls.append("success first") }
        op.failure = { _ in calls.append("failure first") }
        op.completion = { _ in calls.append("completion first") }
        queue.addOperation(op)
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            op.success = { _ in calls.append("success \(index)") }
            op.failure = { _ in calls.append("failure \(index)") }
            op.completion = { _ in calls.append("completion \(index)") }
            op.onUploadProgress = { _ in }
            op.onCachedValue = { _ in }
            _ = (op.success, op.failure, op.completion, op.onUploadProgress, op.onCachedValue, op.result, op.metrics)
        }
        waitUntilFinished(op)
        callbackQueue.sync {}
        XCTAssertEqual(calls.values.filter { $0.hasPrefix("success") }.count, 1)
        XCTAssertEqual(calls.values.filter { $0.hasPrefix("completion") }.count, 1)
        XCTAssertEqual(calls.values.filter { $0.hasPrefix("failure") }.count, 0)
        XCTAssertEqual(try op.result?.get().id, 1)
    }

    func testObserversRunOnceAfterTheCallbacksAndAtOnceWhenLate() throws {
        let op = RequestOperation(request: TestRequest("/products/1"), configuration: makeHost(), decoding: Product.self)
        let order = Collector<String>()
        op.completion = { _ in order.append("completion") }
        op.observeDelivery { [unowned op] in order.append("observer \((try? op.result?.get().id) ?? 0)") }
        queue.addOperation(op)
        waitUntilFinished(op)
        callbackQueue.sync {}
        XCTAssertEqual(order.values, ["completion", "observer 1"])
        op.observeDelivery { [unowned op] in order.append("late \((try? op.result?.get().id) ?? 0)") }
        XCTAssertEqual(order.values, ["completion", "observer 1", "late 1"])
    }

    func testAsyncRunOfAnOperationCancelledWhileQueuedReturnsBeforeTheQueueMoves() async {
        let suspended = NetworkQueue(maxConcurrentOperationCount: 1)
        suspended.isSuspended = true
        let op = RequestOperation(request: TestRequest("/products/1"), configuration: makeHost(), decoding: Product.self)
        let task = Task { try await suspended.run(op) }
        let started = Date()
        while suspended.operationCount == 0 && Date().timeIntervalSince(started) < 5 {
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        op.cancel()
        switch await task.result {
        case .success: XCTFail("must be cancelled")
        case .failure(let error): XCTAssertTrue((error as? NetworkError)?.isCancelled ?? false)
        }
        // Returned while the queue still holds it (it finishes when the queue gets to it).
        XCTAssertFalse(op.isFinished)
        suspended.isSuspended = false
        suspended.waitUntilAllOperationsAreFinished()
        XCTAssertTrue(op.isFinished)
        XCTAssertEqual(server.requests.count, 0)
    }
}
