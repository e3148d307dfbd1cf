@testable import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session delegate keeps per-task state only while a task runs, whatever way it ends.
final class SessionDelegateTests: ServerTestCase {
    func testNoTaskStateLingersAfterAnyEnding() {
        let host = makeHost()
        let paths = ["/status/200", "/status/401?challenge=1", "/status/401", "/status/500", "/close", "/reset", "/delay/2000"]
        let done = expectation(description: "all ended")
        done.expectedFulfillmentCount = paths.count * 3
        let outcomes = Collector<String>()
        var services: [EasyNetworkService] = []
        for _ in 0..<3 {
            for path in paths {
                let service = EasyNetworkService(host)
                services.append(service)
                let request = TestRequest(path, timeout: path.hasPrefix("/delay") ? 0.3 : 5)
                service.request(request, success: { _ in
                    outcomes.append("\(path) ok")
                    done.fulfill()
                }, failure: { error in
                    outcomes.append("\(path) \(error.statusCode.map(String.init) ?? (error.isTimeout ? "timeout" : "\(error.kind)"))")
                    done.fulfill()
                })
            }
        }
        wait(for: [done], timeout: 10)
        // Each ending was really taken, three times.
        let expected = ["/status/200 ok", "/status/401?challenge=1 401", "/status/401 401", "/status/500 500",
                        "/close transport", "/reset transport", "/delay/2000 timeout"]
        for ending in expected {
            XCTAssertEqual(outcomes.values.filter { $0 == ending }.count, 3, "\(ending) in \(outcomes.values.sorted())")
        }
        // The delegate forgets a task before its completion runs, so nothing is left
        // by the time the last callback arrived.
        XCTAssertEqual(host.transport.trackedTaskCount, 0)
        withExtendedLifetime(services) {}
    }

    #if !canImport(FoundationNetworking) || DEBUG
    /// Apple's order, taken on Linux: the task completes, then its metrics arrive. The
    /// completion waits for them and carries their first byte time.
    func testMetricsThatArriveAfterTheTaskCompletedReachItsCompletion() throws {
        let delegate = SessionDelegate(expectsMetrics: true)
        let delegateQueue = OperationQueue()
        delegateQueue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: delegateQueue)
        defer { session.invalidateAndCancel() }
        let outcomes = Collector<TransportOutcome>()
        let done = expectation(description: "completed")
        let request = URLRequest(url: server.baseURL.appendingPathComponent("status/200"))
        let task = session.dataTask(with: request)
        delegate.register(task, request: request, completion: { outcome in
            outcomes.append(outcome)
            done.fulfill()
        }, observer: nil, uploadProgress: nil, activity: nil)
        task.resume()
        let limit = Date().addingTimeInterval(10)
        while task.state != .completed, Date() < limit {
            Thread.sleep(forTimeInterval: 0.005)
        }
        XCTAssertEqual(task.state, .completed)
        delegateQueue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(outcomes.values.count, 0, "the completion waits for the metrics")
        XCTAssertEqual(delegate.trackedTaskCount, 1)
        let measured = Date(timeIntervalSince1970: 1_000)
        delegate.taskDidCollectMetrics(task, firstByteAt: measured)
        wait(for: [done], timeout: 10)
        let outcome = try XCTUnwrap(outcomes.values.first)
        XCTAssertEqual(outcome.response?.statusCode, 200)
        XCTAssertEqual(outcome.firstByteAt, measured)
        XCTAssertEqual(delegate.trackedTaskCount, 0)
        delegate.taskDidCollectMetrics(task, firstByteAt: Date())  // once only
        delegateQueue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(outcomes.values.count, 1)
    }
    #endif
    /// Tasks that overlap and end in another order than they started each get their own
    /// body, whole and in order, whether it came in one piece or many.
    func testOverlappingTasksEachGetTheirOwnBody() throws {
        let count = 12
        let body: @Sendable (Int) -> Data = { index in Data((0..<(index * 5_000 + 1)).map { UInt8(truncatingIfNeeded: $0 &* (index + 1)) }) }
        server.route(prefix: "/piece/") { request in
            let index = Int(request.path.dropFirst("/piece/".count)) ?? 0
            let data = body(index)
            // Later tasks answer sooner; odd ones in many chunks.
            let reply: LoopbackReply = index % 2 == 1
                ? .chunked(stride(from: 0, to: data.count, by: 997).map { data[$0..<min($0 + 997, data.count)] })
                : .data(data)
            return .delayed(Double(count - index) * 0.02, reply)
        }
        let delegate = SessionDelegate()
        let delegateQueue = OperationQueue()
        delegateQueue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: delegateQueue)
        defer { session.invalidateAndCancel() }
        let outcomes = Collector<(Int, TransportOutcome)>()
        let done = expectation(description: "all completed")
        done.expectedFulfillmentCount = count
        for index in 0..<count {
            let request = URLRequest(url: server.baseURL.appendingPathComponent("piece/\(index)"))
            let task = session.dataTask(with: request)
            delegate.register(task, request: request, completion: { outcome in
                outcomes.append((index, outcome))
                done.fulfill()
            }, observer: nil, uploadProgress: nil, activity: nil)
            task.resume()
        }
        wait(for: [done], timeout: 20)
        XCTAssertEqual(outcomes.values.map(\.0).sorted(), Array(0..<count))
        for (index, outcome) in outcomes.values {
            XCTAssertNil(outcome.error, "task \(index)")
            XCTAssertEqual(outcome.response?.statusCode, 200, "task \(index)")
            XCTAssertEqual(outcome.request.url?.lastPathComponent, "\(index)")
            XCTAssertEqual(outcome.data, body(index), "task \(index)")
            XCTAssertNotNil(outcome.firstByteAt, "task \(index)")
        }
        XCTAssertEqual(delegate.trackedTaskCount, 0)
    }
    /// A redirect keeps credentials only within one origin: scheme, host and port, the
    /// first two in any case and the port defaulted by the scheme.
    func testSameOriginComparesSchemeHostAndPort() {
        let url = { (text: String) in URL(string: text) }
        XCTAssertTrue(SessionDelegate.sameOrigin(url("http://api.example.com/a"), url("HTTP://API.Example.com:80/b")))
        XCTAssertTrue(SessionDelegate.sameOrigin(url("https://api.example.com:443/a"), url("https://api.example.com/b?c=d")))
        XCTAssertTrue(SessionDelegate.sameOrigin(url("ftp://host:21/a"), url("ftp://host:21/b")))
        XCTAssertFalse(SessionDelegate.sameOrigin(url("http://api.example.com/a"), url("https://api.example.com/a")))
        XCTAssertFalse(SessionDelegate.sameOrigin(url("http://api.example.com/a"), url("http://cdn.example.com/a")))
        XCTAssertFalse(SessionDelegate.sameOrigin(url("http://api.example.com/a"), url("http://api.example.com:8080/a")))
        XCTAssertFalse(SessionDelegate.sameOrigin(url("https://api.example.com/a"), url("https://api.example.com:80/a")))
        XCTAssertFalse(SessionDelegate.sameOrigin(url("ftp://host/a"), url("ftp://host:21/a")), "no default port for ftp")
        XCTAssertFalse(SessionDelegate.sameOrigin(nil, url("http://api.example.com/a")))
        XCTAssertFalse(SessionDelegate.sameOrigin(url("http://api.example.com/a"), nil))
    }

    /// Without its host (never expected while one of its tasks runs: the task's exchange
    /// holds the host) the delegate cannot ask the host's redirect handler or its pins, so
    /// it fails closed: the redirect is not followed and the task ends with the 3xx.
    func testARedirectIsNotFollowedWhenTheHostIsGone() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/hop") { _ in .status(302, headers: ["Location": "/landing"], body: Data()) }
        server.route("GET", "/landing") { _ in .json(#"{"ok": true}"#) }
        let delegate = SessionDelegate()  // no host
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let request = URLRequest(url: server.baseURL.appendingPathComponent("hop"))
        let task = session.dataTask(with: request)
        let outcomes = Collector<TransportOutcome>()
        let done = expectation(description: "completed")
        delegate.register(task, request: request, completion: { outcome in
            outcomes.append(outcome)
            done.fulfill()
        }, observer: nil, uploadProgress: nil, activity: nil)
        task.resume()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(outcomes.values.first?.response?.statusCode, 302, "the redirect is not followed")
        XCTAssertTrue(server.requests(path: "/landing").isEmpty, "nothing reached the redirect's target")
    }
}
