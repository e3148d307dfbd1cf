// The package's shared test helpers (Tests/EasyNetworkTestSupport), visible to every file
// of this target.
@_exported import EasyNetworkTestSupport
import EasyNetwork
import EasyNetworkTesting
@testable import EasyNetworkOutbox
import Foundation
import XCTest

/// A request that posts one numbered event, with a credential the outbox must not store.
struct EventRequest: BaseAPIRequest {
    let n: Int
    var path = "/events"
    var extraHeaders: [String: String] = [:]
    /// Text added to the body, to make it larger.
    var padding = ""
    var api: String { path }
    var method: NetworkService.Method { .post }
    var query: NetworkService.QueryType { .json }
    var params: [String: Any]? { padding.isEmpty ? ["n": n] : ["n": n, "padding": padding] }
    var headers: [String: String]? { ["Authorization": "Bearer secret", "Cookie": "session=1"].merging(extraHeaders) { $1 } }
}

/// What a loopback route saw of the events posted to it: number, idempotency key and
/// headers of each request, in arrival order.
final class EventLog: @unchecked Sendable {  // unchecked: `items` guarded by `lock`
    struct Event {
        let n: Int
        let key: String?
        let request: RecordedRequest
    }

    private let lock = NSLock()
    private var items: [Event] = []

    func record(_ request: RecordedRequest) {
        let n = (request.jsonBody() as? [String: Any])?["n"] as? Int ?? -1
        lock.lock()
        items.append(Event(n: n, key: request.header("Idempotency-Key"), request: request))
        lock.unlock()
    }

    var events: [Event] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }

    var numbers: [Int] { events.map(\.n) }
}

/// A base for outbox tests: a loopback server, a queue, and a fresh folder removed after
/// each test.
class OutboxTestCase: ServerTestCase {
    var folder: URL!
    let queue = NetworkQueue()
    let log = EventLog()

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("easynetwork-outbox-\(UUID().uuidString)")
    }

    override func tearDown() {
        if let folder, FileManager.default.fileExists(atPath: folder.path) {
            _ = try? Process.run(URL(fileURLWithPath: "/bin/chmod"), arguments: ["-R", "u+rwx", folder.path]).waitUntilExit()
            try? FileManager.default.removeItem(at: folder)
        }
        super.tearDown()
    }

    /// Replies `reply(n)` to every POST /events, after recording it.
    func serveEvents(_ reply: @escaping @Sendable (Int) -> LoopbackReply = { _ in .status(200) }) {
        let log = self.log
        server.route("POST", "/events") { request in
            log.record(request)
            return reply((request.jsonBody() as? [String: Any])?["n"] as? Int ?? -1)
        }
    }

    /// Options with short waits, for tests.
    func fastOptions(
        maxEntries: Int = 10_000, maxBytes: Int = 50 * 1024 * 1024, whenFull: OutboxOptions.FullPolicy = .refuse,
        width: Int = 1, maxAttempts: Int = 25, maxAge: TimeInterval = 7 * 24 * 60 * 60, idempotencyHeader: String = "Idempotency-Key"
    ) -> OutboxOptions {
        OutboxOptions(
            maxEntries: maxEntries, maxBytes: maxBytes, whenFull: whenFull, width: width, maxAttempts: maxAttempts, maxAge: maxAge,
            retryDelay: 0.01, maxRetryDelay: 0.2, idempotencyHeader: idempotencyHeader, lockRetryInterval: 0.02
        )
    }

    func makeOutbox(host: HostConfiguration? = nil, options: OutboxOptions? = nil) -> Outbox {
        Outbox(host: host ?? makeHost(), queue: queue, folder: folder, options: options ?? fastOptions())
    }

    /// Waits until `condition` holds (polling), failing after `timeout` seconds.
    func waitUntil(_ what: String, timeout: TimeInterval = 20, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline {
                XCTFail("timed out waiting: " + what)
                return
            }
            usleep(2_000)
        }
    }

    /// The files in a subfolder of the outbox's folder.
    func files(_ sub: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(sub).path)) ?? []).sorted()
    }

    /// The child process executable (Tests/EasyNetworkOutboxChild), built next to the tests.
    static var childURL: URL {
#if os(Linux)
        let directory = Bundle.main.executableURL?.deletingLastPathComponent() ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
#else
        let directory = Bundle(for: OutboxTestCase.self).bundleURL.deletingLastPathComponent()
#endif
        return directory.appendingPathComponent("EasyNetworkOutboxChild")
    }

    /// Starts the child with `arguments`; its standard output goes to the returned pipe.
    func startChild(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = Self.childURL
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return (process, output)
    }

    /// Runs the child to its end (at most `timeout` seconds) and returns its output.
    func runChild(_ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 60) throws -> (status: Int32, output: String) {
        let (process, output) = try startChild(arguments, environment: environment)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(5_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            XCTFail("the child did not end within \(timeout) s: \(arguments)")
        }
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, text)
    }
}
