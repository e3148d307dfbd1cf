@testable import EasyNetwork
import EasyNetworkUploads
import EasyNetworkOrchestration
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which kind of task an attempt goes out on. One that needs no byte events, whose idle
/// timeout the session keeps exactly (a whole number of seconds, on Linux), runs on a
/// task with a completion handler (``PlainTransfer``), which the session delegate never
/// files; every other request stays delegate-driven, with EasyNetwork's own clock. Elsewhere
/// (Apple platforms) every request is delegate-driven.
final class PlainTransferTests: ServerTestCase {
    /// Whether this platform sends plain requests at all.
    private let platformHasPlainTasks = NetworkService.sessionKeepsIdle(60)

    /// A request with an adapter that can change its `timeoutInterval`.
    private final class TimeoutSetter: RequestInterceptor, @unchecked Sendable {  // unchecked: immutable
        let interval: TimeInterval
        init(_ interval: TimeInterval) { self.interval = interval }
        func adapt(_ urlRequest: URLRequest, context: RequestContext) throws -> URLRequest {
            var adapted = urlRequest
            adapted.timeoutInterval = interval
            return adapted
        }
    }

    /// Starts `start` (which sends one request to `path`), waits until the server has it,
    /// and returns how many tasks the host's session delegate keeps state for meanwhile.
    private func trackedWhileInFlight(_ host: HostConfiguration, path: String, _ start: () -> Void) -> Int {
        start()
        let limit = Date().addingTimeInterval(5)
        while server.requests(path: path).isEmpty, Date() < limit {
            Thread.sleep(forTimeInterval: 0.005)
        }
        XCTAssertFalse(server.requests(path: path).isEmpty, "the request reached the server")
        return host.transport.trackedTaskCount
    }

    private func sendAndWait(_ request: BaseAPIRequest, host: HostConfiguration, path: String, done: XCTestExpectation) -> Int {
        let tracked = trackedWhileInFlight(host, path: path) {
            EasyNetworkService(host).request(request, success: { _ in done.fulfill() }, failure: { _ in done.fulfill() })
        }
        wait(for: [done], timeout: 10)
        return tracked
    }

    func testTheSessionKeepsOnlyWholeSecondsOnLinux() {
        #if canImport(FoundationNetworking)
        XCTAssertTrue(NetworkService.sessionKeepsIdle(1))
        XCTAssertTrue(NetworkService.sessionKeepsIdle(60))
        XCTAssertFalse(NetworkService.sessionKeepsIdle(0.5), "corelibs cuts it to 0 s")
        XCTAssertFalse(NetworkService.sessionKeepsIdle(1.5), "corelibs cuts it to 1 s")
        XCTAssertFalse(NetworkService.sessionKeepsIdle(0))
        XCTAssertFalse(NetworkService.sessionKeepsIdle(.infinity))
        XCTAssertFalse(NetworkService.sessionKeepsIdle(.nan))
        XCTAssertFalse(NetworkService.sessionKeepsIdle(1e12), "too large for corelibs' milliseconds")
        #else
        XCTAssertFalse(NetworkService.sessionKeepsIdle(60), "Apple platforms keep every request delegate-driven")
        #endif
        // The built request carries the idle timeout itself only where the session keeps it;
        // else a finite backstop a second past it (corelibs stops the process on NaN or infinity).
        XCTAssertEqual(NetworkService.requestTimeout(forIdle: 60, exact: true), platformHasPlainTasks ? 60 : 61)
        XCTAssertEqual(NetworkService.requestTimeout(forIdle: 60, exact: false), 61)
        XCTAssertEqual(NetworkService.requestTimeout(forIdle: 0.3, exact: true), 2)
        XCTAssertEqual(NetworkService.requestTimeout(forIdle: .nan, exact: true), 1)
        XCTAssertEqual(NetworkService.requestTimeout(forIdle: -3, exact: false), 1)
        XCTAssertTrue(NetworkService.requestTimeout(forIdle: .infinity, exact: true).isFinite)
    }

    func testARequestThatNeedsNoByteEventsRunsOnAPlainTask() {
        let host = makeHost()
        let tracked = sendAndWait(TestRequest("/delay/300"), host: host, path: "/delay/300", done: expectation(description: "done"))
        XCTAssertEqual(tracked, platformHasPlainTasks ? 0 : 1, "a plain task is never filed with the session delegate")
        XCTAssertEqual(host.transport.trackedTaskCount, 0)
    }

    func testRequestsThatNeedByteEventsStayDelegateDriven() {
        // A sub-second or fractional idle timeout: corelibs would cut it to whole seconds.
        for (index, timeout) in [0.9, 1.5].enumerated() {
            let host = makeHost()
            let path = "/delay/\(300 + index)"
            let tracked = sendAndWait(TestRequest(path, timeout: timeout), host: host, path: path, done: expectation(description: "\(timeout)"))
            XCTAssertEqual(tracked, 1, "timeout \(timeout) s")
        }
        // An adapter that changes the timeout the session would keep.
        let host = makeHost()
        host.interceptors.append(TimeoutSetter(30))
        let tracked = sendAndWait(TestRequest("/delay/302"), host: host, path: "/delay/302", done: expectation(description: "adapted"))
        XCTAssertEqual(tracked, 1, "a request whose timeoutInterval an interceptor changed")
        XCTAssertEqual(host.transport.trackedTaskCount, 0)
    }

    /// A multipart body (sent from a file the transfer watches) and a transfer shared by
    /// coalesced requests (whose bytes every seat hears) stay delegate-driven.
    func testAMultipartBodyAndASharedTransferStayDelegateDriven() {
        struct FormRequest: BaseAPIRequest {
            var form: MultipartFormData
            var api: String { "/delay/305" }
            var method: NetworkService.Method { .post }
            var multipartBody: MultipartFormData? { form }
        }
        var form = MultipartFormData()
        form.append("v", name: "k")
        let host = makeHost()
        let tracked = sendAndWait(FormRequest(form: form), host: host, path: "/delay/305", done: expectation(description: "multipart"))
        XCTAssertEqual(tracked, 1, "a multipart body")
        XCTAssertEqual(server.requests(path: "/delay/305").count, 1)

        let shared = makeHost()
        shared.coalescesRequests = true
        let done = expectation(description: "coalesced")
        done.expectedFulfillmentCount = 2
        let seats = trackedWhileInFlight(shared, path: "/delay/306") {
            for _ in 0..<2 {
                EasyNetworkService(shared).request(TestRequest("/delay/306"), success: { _ in done.fulfill() }, failure: { _ in done.fulfill() })
            }
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(seats, 1, "one shared transfer, delegate-driven")
        XCTAssertEqual(server.requests(path: "/delay/306").count, 1, "the two requests shared one transfer")
        XCTAssertEqual(shared.transport.trackedTaskCount, 0)
    }

    func testABodyWhoseUploadIsWatchedStaysDelegateDrivenAndReportsProgress() {
        let host = makeHost()
        let request = TestRequest("/delay/303", method: .post, query: .json, params: ["text": String(repeating: "x", count: 50_000)])
        let op = RequestOperation(request: request, configuration: host, responseDecoder: .json)
        let progress = Collector<Double>()
        op.onUploadProgress = { progress.append($0.fractionCompleted) }
        let done = expectation(description: "done")
        op.completion = { _ in done.fulfill() }
        let tracked = trackedWhileInFlight(host, path: "/delay/303") { NetworkQueue().addOperation(op) }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(tracked, 1)
        XCTAssertNotNil(try? op.result?.get())
        XCTAssertEqual(progress.values.last, 1, "the upload reported its bytes")
        XCTAssertNotNil(op.metrics?.firstByteAt, "a delegate-driven request measures its first byte")
    }

    func testARequestOperationWithoutABodyRunsPlain() {
        let host = makeHost()
        let op = RequestOperation(request: TestRequest("/delay/304"), configuration: host, responseDecoder: .json)
        op.onUploadProgress = { _ in }
        let done = expectation(description: "done")
        op.completion = { _ in done.fulfill() }
        let tracked = trackedWhileInFlight(host, path: "/delay/304") { NetworkQueue().addOperation(op) }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(tracked, platformHasPlainTasks ? 0 : 1, "no body, no upload to watch")
        XCTAssertNotNil(try? op.result?.get())
        if platformHasPlainTasks {
            XCTAssertNil(op.metrics?.firstByteAt, "documented: a plain task on Linux tells nobody when its response began")
        }
    }

    /// corelibs' own idle timer (set 1 ms short of the timeout, 1 ms of leeway, started
    /// over by every byte) ends a plain task within 50 ms after `timeout` of silence. Timed
    /// where the task ends (the session's delegate queue), against the moment the server
    /// had the request and sent part of a body at once, then nothing: best of three, since
    /// the machine is shared (measured here: 999.5–1,037 ms with four busy loops running).
    func testAWholeSecondIdleTimeoutOnAPlainTaskFiresWithin50MillisecondsOfItsDeadline() throws {
        try XCTSkipUnless(platformHasPlainTasks, "no plain tasks on this platform")
        server.route("/stalled-at-once") { _ in .stalledBody(declaredLength: 10_000, sentBytes: 500) }
        let transport = NetworkService(configuration: .ephemeral)
        var lateness: [TimeInterval] = []
        for _ in 0..<3 {
            server.resetRecords()
            var request = URLRequest(url: server.baseURL.appendingPathComponent("stalled-at-once"))
            request.timeoutInterval = 1  // set, as URLRequestBuilder does: corelibs ignores it otherwise
            let done = expectation(description: "ended")
            let endings = Collector<(Date, TransportOutcome)>()
            _ = transport.plainTask(with: request, priority: nil) { outcome in
                endings.append((Date(), outcome))
                done.fulfill()
            }
            wait(for: [done], timeout: 10)
            let (ended, outcome) = try XCTUnwrap(endings.values.first)
            XCTAssertEqual((outcome.error as? URLError)?.code, .timedOut, "\(String(describing: outcome.error))")
            let received = try XCTUnwrap(server.requests(path: "/stalled-at-once").first?.receivedAt)
            let late = ended.timeIntervalSince(received) - 1
            XCTAssertGreaterThanOrEqual(late, -0.005, "not before the second of silence (corelibs' timer is 1 ms short)")
            lateness.append(late)
            if late <= 0.05 { break }
        }
        XCTAssertLessThanOrEqual(lateness.min() ?? .infinity, 0.05, "late by \(lateness) s")
        transport.invalidate()
    }

    /// Through the whole pipeline: 0.6 s of silence, then the head and part of the body,
    /// then silence; the bytes start the session's idle timeout over (it cannot end before
    /// 0.6 + 1 s), the attempt ran on a plain task, and the timeout reads as EasyNetwork's own.
    func testAPlainRequestsIdleTimeoutStartsOverWithItsBytesAndReadsAsATransportTimeout() throws {
        try XCTSkipUnless(platformHasPlainTasks, "no plain tasks on this platform")
        server.route("/moved-then-stalled") { _ in .delayed(0.6, .stalledBody(declaredLength: 10_000, sentBytes: 500)) }
        let host = makeHost()
        let done = expectation(description: "done")
        let errors = Collector<NetworkError>()
        let ended = Collector<Date>()
        let started = Date()
        let tracked = trackedWhileInFlight(host, path: "/moved-then-stalled") {
            EasyNetworkService(host).request(TestRequest("/moved-then-stalled", timeout: 1), success: { _ in
                done.fulfill()
            }, failure: { error in
                ended.append(Date())
                errors.append(error)
                done.fulfill()
            })
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(tracked, 0, "the attempt ran on a plain task")
        let error = try XCTUnwrap(errors.values.first, "a stalled body must fail")
        XCTAssertTrue(error.isTimeout, "\(error)")
        XCTAssertEqual(error.kind, .transport)
        XCTAssertEqual((error.underlyingError as? URLError)?.localizedDescription, "No byte was sent or received for 1.0 s.")
        let elapsed = try XCTUnwrap(ended.values.first).timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(elapsed, 1.6 - 0.005, "the bytes after 0.6 s started the idle timeout over")
        XCTAssertLessThan(elapsed, 1.6 + 2.5)
    }

    func testA401WithAChallengeOnAPlainTaskReportsTheUnauthorizedResponse() {
        let host = makeHost()
        let done = expectation(description: "done")
        let errors = Collector<NetworkError>()
        EasyNetworkService(host).request(TestRequest("/status/401", params: ["challenge": 1]), success: { _ in done.fulfill() }, failure: {
            errors.append($0)
            done.fulfill()
        })
        wait(for: [done], timeout: 10)
        XCTAssertEqual(errors.values.first?.statusCode, 401)
        XCTAssertTrue(errors.values.first?.isUnauthorized ?? false)
        XCTAssertEqual(host.transport.trackedTaskCount, 0, "the challenge's 401 was taken by its completion")
    }

    /// swift-corelibs-foundation can stop the process when a task is cancelled just as it
    /// completes (LinuxNotes.md): a plain task is cancelled only while its completion
    /// has not run. Hundreds of quick requests cancelled around their end each call back
    /// once, and the process survives.
    func testQuickPlainRequestsCancelledAroundTheirEndEachCallBackOnce() {
        let host = makeHost()
        let total = Int(ProcessInfo.processInfo.environment["EASYNETWORK_PLAIN_CANCEL_STRESS"] ?? "") ?? 400
        let outcomes = Collector<String>()
        let group = DispatchGroup()
        let slots = DispatchSemaphore(value: 8)
        for index in 0..<total {
            slots.wait()
            group.enter()
            let service = EasyNetworkService(host)
            service.request(TestRequest("/status/200"), success: { _ in
                outcomes.append("success")
                slots.signal()
                group.leave()
            }, failure: { error in
                outcomes.append(error.isCancelled ? "cancelled" : "\(error)")
                slots.signal()
                group.leave()
            })
            // 0 to 3 ms after the start: before, during and after the short transfer.
            DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds((index * 7_919) % 3_000)) { service.cancel() }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success, "every request calls back")
        let values = outcomes.values
        XCTAssertEqual(values.count, total, "each calls back once")
        XCTAssertEqual(values.filter { $0 != "success" && $0 != "cancelled" }, [])
        let cancelled = values.filter { $0 == "cancelled" }.count
        XCTAssertGreaterThan(cancelled, 0, "some were cut off")
        XCTAssertLessThan(cancelled, total, "some ended before their cancel")
        print("plain cancel stress: \(total - cancelled) succeeded, \(cancelled) cancelled")
        XCTAssertEqual(host.transport.trackedTaskCount, 0)
    }

    func testCancellingAPlainRequestInFlightReportsOneCancellation() {
        let host = makeHost()
        let service = EasyNetworkService(host)
        let done = expectation(description: "done")
        let outcomes = Collector<String>()
        let tracked = trackedWhileInFlight(host, path: "/delay/3000") {
            service.request(TestRequest("/delay/3000"), success: { _ in
                outcomes.append("success")
                done.fulfill()
            }, failure: { error in
                outcomes.append(error.isCancelled ? "cancelled" : "\(error)")
                done.fulfill()
            })
        }
        let cancelled = Date()
        service.cancel()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(tracked, platformHasPlainTasks ? 0 : 1)
        XCTAssertEqual(outcomes.values, ["cancelled"])
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 2, "ended by the cancel, not by the server")
    }
}
