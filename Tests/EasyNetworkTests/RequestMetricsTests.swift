@testable import EasyNetwork
import EasyNetworkUploads
import EasyNetworkTesting
import Foundation
import XCTest

/// `RequestMetrics` on the requests they measure.
final class RequestMetricsTests: ServerTestCase {
    private let queue = NetworkQueue(maxConcurrentOperationCount: 2)

    private func run<Output>(_ op: RequestOperation<Output>) -> RequestMetrics? {
        let done = expectation(description: "done")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: 10)
        return op.metrics
    }

    private func assertFirstByteWithin(_ metrics: RequestMetrics?, file: StaticString = #filePath, line: UInt = #line) {
        guard let metrics, let firstByte = metrics.firstByteAt else {
            XCTFail("firstByteAt is nil although bytes arrived: \(String(describing: metrics))", file: file, line: line)
            return
        }
        XCTAssertGreaterThanOrEqual(firstByte, metrics.startedAt, file: file, line: line)
        XCTAssertLessThanOrEqual(firstByte, metrics.endedAt, file: file, line: line)
    }

    /// A timeout that is not a whole number of seconds keeps a request delegate-driven on
    /// Linux, where a task with a completion handler (a plain request, see
    /// `PlainTransferTests`) cannot tell when its response began; elsewhere every request is.
    private let measured: TimeInterval = 9.5

    func testFirstByteAtIsSetWhenBytesArrived() {
        let host = makeHost()
        assertFirstByteWithin(run(RequestOperation(request: TestRequest("/delay/50", timeout: measured), configuration: host, responseDecoder: .json)))
        assertFirstByteWithin(run(RequestOperation(request: TestRequest("/status/500", timeout: measured), configuration: host, responseDecoder: .json)))
        assertFirstByteWithin(run(RequestOperation(request: TestRequest("/echo", method: .post, query: .json, params: ["k": "v"]), configuration: host, responseDecoder: .json)))
    }

    func testOnLinuxAPlainRequestHasNoFirstByteAt() throws {
        let metrics = try XCTUnwrap(run(RequestOperation(request: TestRequest("/delay/50"), configuration: makeHost(), responseDecoder: .json)))
        XCTAssertGreaterThan(metrics.bytesReceived, 0)
        if NetworkService.sessionKeepsIdle(60) {
            XCTAssertNil(metrics.firstByteAt, "documented: a plain task on Linux tells nobody when its response began")
        } else {
            assertFirstByteWithin(metrics)
        }
    }

    func testFirstByteAtIsWhenTheResponseBeganNotWhenItEnded() throws {
        // Six pieces 100 ms apart: the body ends at least 0.5 s after it began.
        let request = TestRequest("/slow-body?chunks=6&interval_ms=100", timeout: measured)
        let metrics = try XCTUnwrap(run(RequestOperation(request: request, configuration: makeHost(), responseDecoder: .json)))
        assertFirstByteWithin(metrics)
        let firstByte = try XCTUnwrap(metrics.firstByteAt)
        XCTAssertGreaterThanOrEqual(metrics.endedAt.timeIntervalSince(firstByte), 0.2, "\(metrics)")
    }

    func testFirstByteAtOfAnUploadWithProgress() {
        server.route("POST", "/upload") { _ in .json(#"{"stored": true}"#) }
        var form = MultipartFormData()
        form.append(Data(count: 100_000), name: "file", fileName: "f.bin")
        let op = RequestOperation(request: UploadRequest(form: form), configuration: makeHost(), responseDecoder: .json)
        op.onUploadProgress = { _ in }
        assertFirstByteWithin(run(op))
    }

    func testNoFirstByteWhenNothingArrived() throws {
        let closed = try LoopbackServer()
        let url = closed.baseURL
        closed.stop()
        let host = HostConfiguration(baseURL: url)
        host.callbackQueue = callbackQueue
        let metrics = run(RequestOperation(request: TestRequest("/nothing"), configuration: host, responseDecoder: .json))
        XCTAssertNotNil(metrics)
        XCTAssertNil(metrics?.firstByteAt)
    }

    /// Equality compares the measurements (two values made apart), not the storage.
    func testMetricsAreEqualByTheirMeasurements() {
        let start = Date(timeIntervalSince1970: 1_000)
        func make(firstByte: Date? = nil, received: Int = 10) -> RequestMetrics {
            RequestMetrics(queuedAt: start, startedAt: start, firstByteAt: firstByte, endedAt: start + 1, bytesSent: 3, bytesReceived: received, attempts: 1)
        }
        XCTAssertEqual(make(), make())
        XCTAssertNotEqual(make(), make(received: 11))
        XCTAssertNotEqual(make(), make(firstByte: start))
        XCTAssertEqual(make(firstByte: start), make(firstByte: start))
    }
}
