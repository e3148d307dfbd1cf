import EasyNetworkTesting
import EasyNetworkTestSupport
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@testable import EasyNetwork

/// swift-corelibs-foundation traps when a redirect's answer reaches a task that was
/// cancelled while its delegate was asked (seen once in the fuzz test under
/// ThreadSanitizer): the library's cancels and its redirect answers take turns.
final class RedirectGuardTests: XCTestCase {
    func testAnAnswerToACancelledTaskIsNotGivenOnLinux() throws {
        // A server that never answers: the task is still running when it is cancelled (a
        // raw task cancelled just as it completes, say refused by a closed port, can trap in
        // corelibs: see LinuxNotes).
        let server = try LoopbackServer()
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let url = server.baseURL.appendingPathComponent("stall-headers")
        let task = session.dataTask(with: url)
        task.resume()
        let limit = Date().addingTimeInterval(5)
        while server.requests(path: "/stall-headers").isEmpty, Date() < limit {
            Thread.sleep(forTimeInterval: 0.005)
        }
        var answered = 0
        SessionDelegate.answer(task, URLRequest(url: url)) { _ in answered += 1 }
        XCTAssertEqual(answered, task.state == .running ? 1 : 0, "a running task gets its answer")
        SessionDelegate.cancel(task)
        XCTAssertNotEqual(task.state, .running)
        var late = 0
        SessionDelegate.answer(task, URLRequest(url: url)) { _ in late += 1 }
        #if canImport(FoundationNetworking)
        XCTAssertEqual(late, 0, "no answer after a cancel: corelibs would trap on it")
        #else
        XCTAssertEqual(late, 1, "Apple platforms always get the answer")
        #endif
    }

    /// Redirected requests cancelled at every moment of their redirect, delegate-driven and
    /// plain, in a child process (a trap inside FoundationNetworking would end it): every
    /// request calls back once and the process lives.
    func testCancellingRedirectedRequestsAtAnyMomentNeverEndsTheProcess() throws {
        let child = try ChildProcess.run(self, timeout: 120) { () -> String in
            let server = try LoopbackServer()
            defer { server.stop() }
            server.route(prefix: "/hop/") { _ in
                .status(307, headers: ["Location": "/landing"], body: Data())
            }
            server.route("POST", "/landing") { _ in .json(#"{"ok": true}"#) }
            server.route("GET", "/landing") { _ in .json(#"{"ok": true}"#) }
            let host = HostConfiguration(baseURL: server.baseURL)
            host.callbackQueue = DispatchQueue(label: "redirect-guard")
            let queue = NetworkQueue()
            queue.maxConcurrentOperationCount = 8
            let group = DispatchGroup()
            let counter = CallbackCounter()
            for index in 0..<300 {
                let request = index % 2 == 0
                    ? TestRequest("/hop/\(index)", method: .post, query: .json, params: ["n": index])
                    : TestRequest("/hop/\(index)", timeout: index % 4 == 1 ? 0.7 : 5)
                let operation = RequestOperation(request: request, configuration: host, responseDecoder: .json)
                group.enter()
                operation.completion = { _ in counter.add(); group.leave() }
                queue.addOperation(operation)
                let delay = Double(index % 7) * 0.0007
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) { operation.cancel() }
            }
            _ = group.wait(timeout: .now() + 90)
            return "callbacks \(counter.value)"
        }
        XCTAssertFalse(child.crashed, child.summary)
        XCTAssertEqual(child.report, "callbacks 300")
    }
}

private final class CallbackCounter: @unchecked Sendable {
    // unchecked: `count` is read and written only under `lock`.
    private let lock = NSLock()
    private var count = 0
    func add() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
