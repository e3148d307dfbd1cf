import EasyNetwork
import EasyNetworkRetry
import EasyNetworkTesting
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one operation reported: its callbacks in order, with their times.
private final class CallbackLog: @unchecked Sendable {
    /// One call of `success` or `failure`.
    enum Call {
        case success(String)
        case failure(NetworkError)
    }

    private let lock = NSLock()
    private var calls: [(at: Date, call: Call)] = []
    private var completionCount = 0
    let startedAt = Date()

    func record(_ call: Call) {
        lock.lock(); defer { lock.unlock() }
        calls.append((Date(), call))
    }

    func recordCompletion() {
        lock.lock(); defer { lock.unlock() }
        completionCount += 1
    }

    /// `success`/`failure` calls so far, and `completion` calls so far.
    var counts: (results: Int, completions: Int) {
        lock.lock(); defer { lock.unlock() }
        return (calls.count, completionCount)
    }

    /// The first `success`/`failure` call and seconds from the start to it.
    var first: (call: Call, elapsed: TimeInterval)? {
        lock.lock(); defer { lock.unlock() }
        return calls.first.map { ($0.call, $0.at.timeIntervalSince(startedAt)) }
    }
}

/// One row of the fault matrix: how to provoke the fault and what the single callback must say.
private struct Fault {
    let name: String
    /// The callback the row expects, as the report table names it.
    let expected: String
    /// The longest the callback may take before slack: the request timeout, or the retry waits.
    let budget: TimeInterval
    /// The least it may take (a stall must not end before its timeout).
    var atLeast: TimeInterval = 0
    /// Makes the operation (its callbacks go to `log`).
    let make: (CallbackLog) -> Operation
    /// Nil when the callback is what the row expects, else what is wrong.
    let check: (CallbackLog.Call) -> String?
}

/// Every fault a fault-matrix user throws at a client, each through a `RequestOperation` on a
/// `NetworkQueue`: exactly one typed callback, within the timeout plus slack, and the operation finished.
///
/// Rows run concurrently so the whole matrix costs as long as its slowest row. Unknown host is simulated
/// with an `HTTPStubs` URLProtocol failing with `URLError(.cannotFindHost)`: no DNS lookup, no traffic
/// off 127.0.0.1.
final class FaultMatrixTests: ServerTestCase {
    /// Generous: CI also runs these under ThreadSanitizer on two cores.
    private let slack: TimeInterval = 5
    /// How long callbacks are still counted after the first one.
    private let grace: TimeInterval = 1
    private let stubs = HTTPStubs()

    // MARK: hosts

    /// A host on a port nothing listens on (a server bound 127.0.0.1:0, then closed).
    private func refusedHost() throws -> HostConfiguration {
        let closed = try LoopbackServer()
        let port = closed.port
        closed.stop()
        let host = HostConfiguration(baseURL: URL(string: "http://127.0.0.1:\(port)"))
        host.callbackQueue = callbackQueue
        return host
    }

    /// A host whose name never resolves, answered in-process by a stub that fails `path` the way a failed
    /// DNS lookup does. The stub's protocol accepts every request of the session, so no lookup is made.
    private func unknownHost(path: String, retry: RetryPolicy) -> HostConfiguration {
        stubs.stub(path: path, reply: .failure(URLError(.cannotFindHost)))
        let host = HostConfiguration(baseURL: URL(string: "https://no-such-host.invalid"), sessionConfiguration: stubs.makeSessionConfiguration())
        host.callbackQueue = callbackQueue
        host.retryPolicy = retry
        return host
    }

    // MARK: rows

    private func operation<Output>(
        _ path: String,
        params: [String: Any]? = nil,
        timeout: TimeInterval,
        host: HostConfiguration,
        decoder: ResponseDecoder<Output>,
        log: CallbackLog
    ) -> Operation {
        let op = RequestOperation(request: TestRequest(path, params: params, timeout: timeout), configuration: host, responseDecoder: decoder)
        op.success = { value in log.record(.success(String(describing: value))) }
        op.failure = { error in log.record(.failure(error)) }
        op.completion = { _ in log.recordCompletion() }
        return op
    }

    private static func failure(_ call: CallbackLog.Call, _ kind: NetworkError.Kind, _ more: (NetworkError) -> String? = { _ in nil }) -> String? {
        switch call {
        case .success(let value):
            return "expected a \(kind) failure, got success \(value)"
        case .failure(let error):
            return error.kind == kind ? more(error) : "expected kind \(kind), got \(error)"
        }
    }

    private static func transport(_ call: CallbackLog.Call, code: URLError.Code? = nil) -> String? {
        failure(call, .transport) { error in
            guard let urlError = error.urlError else { return "transport error without a URLError: \(error)" }
            if let code, urlError.code != code { return "expected URLError \(code.rawValue), got \(urlError.code.rawValue)" }
            return nil
        }
    }

    private func rows() throws -> [Fault] {
        let host = makeHost()
        // One retrying host per row: a host's retries share a budget and a Retry-After pauses
        // all of its requests (EasyNetworkRetry), and these rows are about one request each.
        func retrying() -> HostConfiguration {
            let host = makeHost()
            host.retryPolicy = .default
            return host
        }
        let (retryingStall, retryingReset, retrying503) = (retrying(), retrying(), retrying())
        let refused = try refusedHost()
        let unknown = unknownHost(path: "/lookup", retry: .none)
        let unknownRetrying = unknownHost(path: "/lookup-retry", retry: .default)
        let stubs = stubs
        let server = try XCTUnwrap(server)
        let stall: TimeInterval = 1
        let short: TimeInterval = 2
        let trickled = ResponseDecoder<String> { response in
            response.data == Data((0..<20).map { UInt8($0 % 251) }) ? "intact" : "wrong body: \(response.data.count) bytes"
        }

        func requests(_ marker: String) -> Int {
            server.requests.filter { $0.query == "row=\(marker)" }.count
        }
        /// Requests the unknown-host stub answered for `path`: every attempt stayed in the process.
        func stubbed(_ path: String) -> Int {
            stubs.requests.filter { $0.url?.path == path }.count
        }

        // What Linux (swift-corelibs-foundation 6.3.1, libcurl) reports is noted above each row; the
        // typed category is asserted, and the URLError code only where Apple and Linux agree on it.
        return [
            // Nothing listens on the port: -1004 cannotConnectToHost at once (as on Apple).
            Fault(name: "refused", expected: "transport cannotConnectToHost", budget: short,
                  make: { self.operation("/echo", timeout: short, host: refused, decoder: .json, log: $0) },
                  check: { Self.transport($0, code: .cannotConnectToHost) }),
            // 1000 of 100,000 bytes, then a TCP RST: -1005 networkConnectionLost (libcurl "Recv failure:
            // Connection reset by peer"), as on Apple.
            Fault(name: "reset mid-body", expected: "transport networkConnectionLost", budget: short,
                  make: { self.operation("/reset", timeout: short, host: host, decoder: .data, log: $0) },
                  check: { Self.transport($0, code: .networkConnectionLost) }),
            // No byte after the request: our own per-attempt deadline (RequestExchange) cancels the task and
            // reports -1001 timedOut at the timeout; URLSession's own timeout is a whole-second backstop behind it.
            Fault(name: "stalled headers", expected: "transport timeout", budget: stall, atLeast: stall * 0.9,
                  make: { self.operation("/stall-headers", timeout: stall, host: host, decoder: .json, log: $0) },
                  check: { Self.transport($0, code: .timedOut) }),
            // Default policy: timedOut is retried, 3 attempts of 1 s with 0.5 s and 1 s (±25 %) between.
            Fault(name: "stalled headers, default retry", expected: "transport timeout, 3 attempts", budget: 3 * stall + 1.875, atLeast: 3 * stall * 0.9,
                  make: { self.operation("/stall-headers", params: ["row": "retry-stall"], timeout: stall, host: retryingStall, decoder: .json, log: $0) },
                  check: { Self.failure($0, .transport) { $0.isTimeout && $0.attempts == 3 ? nil : "\($0), attempts \(String(describing: $0.attempts))" } }),
            // Head and 1000 bytes, then silence: -1001 timedOut at the timeout, as for stalled headers.
            Fault(name: "stalled body", expected: "transport timeout", budget: stall, atLeast: stall * 0.9,
                  make: { self.operation("/stall-body", timeout: stall, host: host, decoder: .data, log: $0) },
                  check: { Self.transport($0, code: .timedOut) }),
            // A byte every 50 ms, all within the timeout: success with every byte. (A trickle that outlasts the
            // timeout is the idle-versus-total timeout question, issue 12 item 5, tested with that item: on main
            // today the per-attempt deadline is a total one and ends such a trickle with -1001 at the timeout.)
            Fault(name: "slow trickle (20 B, 50 ms apart)", expected: "success, 20 bytes intact", budget: 3,
                  make: { self.operation("/trickle", params: ["bytes": 20, "interval_ms": 50], timeout: 3, host: host, decoder: trickled, log: $0) },
                  check: { call in
                      guard case .success(let value) = call else { return "expected success, got \(call)" }
                      return value == "intact" ? nil : value
                  }),
            // Default policy: networkConnectionLost is retried, 3 attempts with 0.5 s and 1 s (±25 %) between.
            Fault(name: "reset mid-body, default retry", expected: "transport networkConnectionLost, 3 attempts", budget: short + 1.875,
                  make: { self.operation("/reset", params: ["row": "retry-reset"], timeout: short, host: retryingReset, decoder: .data, log: $0) },
                  check: { Self.failure($0, .transport) { $0.urlError?.code == .networkConnectionLost && $0.attempts == 3 ? nil : "\($0), attempts \(String(describing: $0.attempts))" } }),
            // Content-Length 100,000, 1000 bytes, then a normal close (FIN). Linux today: -1 unknown (libcurl
            // "transfer closed with 99000 bytes remaining to read"); Apple: -1005. Item 3 maps it to -1005 on
            // another branch, so only the typed category is asserted, not the code or a retry count.
            Fault(name: "truncated body", expected: "transport (URLError)", budget: short,
                  make: { self.operation("/truncated", timeout: short, host: host, decoder: .data, log: $0) },
                  check: { Self.transport($0) }),
            // A chunk size "zz": Linux -1 unknown (libcurl "Illegal or missing hexadecimal sequence in
            // chunked-encoding"); Apple reports its own parse error code. Typed category only.
            Fault(name: "bad chunk", expected: "transport (URLError)", budget: short,
                  make: { self.operation("/bad-chunk", timeout: short, host: host, decoder: .json, log: $0) },
                  check: { Self.transport($0) }),
            // 401 with WWW-Authenticate: corelibs asks the delegate, which declines the challenge so the task
            // cannot hang; the 401 itself is reported, marked unauthorized.
            Fault(name: "401 with a challenge", expected: "unacceptableStatus 401, unauthorized", budget: short,
                  make: { self.operation("/status/401", params: ["challenge": 1], timeout: short, host: host, decoder: .json, log: $0) },
                  check: { Self.failure($0, .unacceptableStatus) { $0.statusCode == 401 && $0.isUnauthorized ? nil : "\($0)" } }),
            // 204 and no body: Void succeeds; a struct cannot be decoded from nothing (a decoding error, not a crash).
            Fault(name: "204 for Void", expected: "success", budget: short,
                  make: { self.operation("/no-content", params: ["row": "void"], timeout: short, host: host, decoder: .void, log: $0) },
                  check: { call in if case .success = call { return nil } else { return "expected success, got \(call)" } }),
            Fault(name: "204 for a struct", expected: "decoding, status 204", budget: short,
                  make: { self.operation("/no-content", params: ["row": "struct"], timeout: short, host: host, decoder: ResponseDecoder<Product>.decodable(), log: $0) },
                  check: { Self.failure($0, .decoding) { $0.statusCode == 204 ? nil : "status \(String(describing: $0.statusCode))" } }),
            // `{"broken": [1, 2` on 200 and an HTML sign-in page on 200 (a captive portal): decoding errors that
            // keep the status, for a struct and for `.json` alike.
            Fault(name: "malformed JSON", expected: "decoding, status 200", budget: short,
                  make: { self.operation("/malformed-json", timeout: short, host: host, decoder: ResponseDecoder<Product>.decodable(), log: $0) },
                  check: { Self.failure($0, .decoding) { $0.statusCode == 200 ? nil : "status \(String(describing: $0.statusCode))" } }),
            Fault(name: "HTML on 200, struct", expected: "decoding, status 200", budget: short,
                  make: { self.operation("/html", params: ["row": "struct"], timeout: short, host: host, decoder: ResponseDecoder<Product>.decodable(), log: $0) },
                  check: { Self.failure($0, .decoding) { $0.statusCode == 200 ? nil : "status \(String(describing: $0.statusCode))" } }),
            Fault(name: "HTML on 200, JSON", expected: "decoding, status 200", budget: short,
                  make: { self.operation("/html", params: ["row": "json"], timeout: short, host: host, decoder: .json, log: $0) },
                  check: { Self.failure($0, .decoding) { $0.statusCode == 200 ? nil : "status \(String(describing: $0.statusCode))" } }),
            // 302 to itself: corelibs follows 20 redirects (21 requests), then -1007 httpTooManyRedirects.
            Fault(name: "redirect loop", expected: "transport httpTooManyRedirects", budget: short,
                  make: { self.operation("/redirect-loop", timeout: short, host: host, decoder: .json, log: $0) },
                  check: { call in
                      let sent = server.requests.filter { $0.path == "/redirect-loop" }.count
                      return Self.transport(call, code: .httpTooManyRedirects) ?? ((2...50).contains(sent) ? nil : "\(sent) requests")
                  }),
            // A name that does not resolve, simulated in-process (no DNS query may leave the machine): the
            // stub fails with -1003 cannotFindHost, which arrives typed and unchanged; the stub saw every attempt.
            Fault(name: "unknown host (stub)", expected: "transport cannotFindHost", budget: short,
                  make: { self.operation("/lookup", timeout: short, host: unknown, decoder: .json, log: $0) },
                  check: { Self.transport($0, code: .cannotFindHost) ?? (stubbed("/lookup") == 1 ? nil : "stub saw \(stubbed("/lookup")) requests") }),
            // Default policy: cannotFindHost is retried, 3 attempts, backoff 0.5 s then 1 s (±25 %).
            Fault(name: "unknown host (stub), default retry", expected: "transport cannotFindHost, 3 attempts", budget: 1.25 + 0.625,
                  make: { self.operation("/lookup-retry", timeout: short, host: unknownRetrying, decoder: .json, log: $0) },
                  check: { Self.failure($0, .transport) { error in
                      error.urlError?.code == .cannotFindHost && error.attempts == 3 && stubbed("/lookup-retry") == 3
                          ? nil : "\(error), attempts \(String(describing: error.attempts)), stub saw \(stubbed("/lookup-retry"))"
                  } }),
            // 503 with Retry-After: 1. Without retry: the 503, one request.
            Fault(name: "503 Retry-After: 1, no retry", expected: "unacceptableStatus 503, 1 request", budget: short,
                  make: { self.operation("/unavailable/1", params: ["row": "once"], timeout: short, host: host, decoder: .json, log: $0) },
                  check: { Self.failure($0, .unacceptableStatus) { $0.statusCode == 503 && requests("once") == 1 ? nil : "\($0), \(requests("once")) requests" } }),
            // Retry-After wins over the backoff: two waits of 1 s to 1.5 s (the host's pause, jittered).
            Fault(name: "503 Retry-After: 1, default retry", expected: "unacceptableStatus 503, 3 requests 1 s apart", budget: 3 + short, atLeast: 1.9,
                  make: { self.operation("/unavailable/1", params: ["row": "retry-503"], timeout: short, host: retrying503, decoder: .json, log: $0) },
                  check: { call in
                      Self.failure(call, .unacceptableStatus) { error in
                          let times = server.requests.filter { $0.query == "row=retry-503" }.map(\.receivedAt)
                          let gaps = zip(times.dropFirst(), times).map { $0.timeIntervalSince($1) }
                          guard error.statusCode == 503, error.attempts == 3, times.count == 3 else {
                              return "\(error), attempts \(String(describing: error.attempts)), \(times.count) requests"
                          }
                          return gaps.allSatisfy { $0 >= 0.95 } ? nil : "Retry-After not honoured: gaps \(gaps)"
                      }
                  }),
        ]
    }

    // MARK: tests

    func testEveryFaultGivesOneTypedCallbackInTimeAndFinishes() throws {
        let rows = try rows()
        let queue = NetworkQueue(maxConcurrentOperationCount: rows.count)
        let logs = rows.map { _ in CallbackLog() }
        let operations = zip(rows, logs).map { row, log in row.make(log) }
        operations.forEach(queue.addOperation)

        let deadline = Date().addingTimeInterval((rows.map(\.budget).max() ?? 0) + slack)
        while Date() < deadline && !zip(logs, operations).allSatisfy({ $0.counts.results > 0 && $1.isFinished }) {
            RunLoop.current.run(until: Date().addingTimeInterval(0.01))
        }
        RunLoop.current.run(until: Date().addingTimeInterval(grace))

        var table: [String] = []
        for ((row, log), op) in zip(zip(rows, logs), operations) {
            let counts = log.counts
            XCTAssertEqual(counts.results, 1, "\(row.name): success/failure calls")
            XCTAssertEqual(counts.completions, 1, "\(row.name): completion calls")
            XCTAssertTrue(op.isFinished, "\(row.name): operation not finished")
            guard let first = log.first else {
                XCTFail("\(row.name): no callback within \(row.budget) s + \(slack) s")
                continue
            }
            XCTAssertLessThanOrEqual(first.elapsed, row.budget + slack, "\(row.name): callback too late")
            XCTAssertGreaterThanOrEqual(first.elapsed, row.atLeast, "\(row.name): callback too early")
            if let problem = row.check(first.call) {
                XCTFail("\(row.name): \(problem)")
            }
            var seen = "success"
            if case .failure(let error) = first.call {
                seen = "\(error.kind)" + (error.statusCode.map { " \($0)" } ?? "") + (error.urlError.map { " URLError \($0.code.rawValue)" } ?? "")
                    + ", \(error.attempts ?? 1) attempt(s)" + (error.urlError.map { ": \($0.localizedDescription)" } ?? "")
            }
            table.append("| \(row.name) | \(row.expected) | \(seen) | \(String(format: "%.2f", first.elapsed)) s |")
        }
        if ProcessInfo.processInfo.environment["FAULT_MATRIX_REPORT"] != nil {
            print(table.joined(separator: "\n"))
        }
    }

    func testRepresentativeFaultsThroughAsyncSend() async throws {
        let host = makeHost()
        let refused = try refusedHost()
        let unknown = unknownHost(path: "/lookup", retry: .none)
        let queue = NetworkQueue(maxConcurrentOperationCount: 8)

        // name, budget, what `send` must throw (nil: must succeed)
        typealias Row = (name: String, budget: TimeInterval, send: @Sendable () async throws -> Void, expected: NetworkError.Kind?, code: URLError.Code?)
        let rows: [Row] = [
            ("refused", 2, { _ = try await queue.send(FaultGetProduct(api: "/echo", timeout: 2), configuration: refused) }, .transport, nil),
            ("stalled headers", 1, { _ = try await queue.send(FaultGetProduct(api: "/stall-headers", timeout: 1), configuration: host) }, .transport, .timedOut),
            ("401 with a challenge", 2, { _ = try await queue.send(FaultGetProduct(api: "/status/401", timeout: 2, params: ["challenge": 1]), configuration: host) }, .unacceptableStatus, nil),
            ("204 for Void", 2, { try await queue.send(FaultGetVoid(api: "/no-content", timeout: 2), configuration: host) }, nil, nil),
            ("204 for a struct", 2, { _ = try await queue.send(FaultGetProduct(api: "/no-content", timeout: 2), configuration: host) }, .decoding, nil),
            ("malformed JSON", 2, { _ = try await queue.send(FaultGetProduct(api: "/malformed-json", timeout: 2), configuration: host) }, .decoding, nil),
            ("unknown host (stub)", 2, { _ = try await queue.send(FaultGetProduct(api: "/lookup", timeout: 2), configuration: unknown) }, .transport, .cannotFindHost),
        ]

        let outcomes = await withTaskGroup(of: (Int, TimeInterval, Result<Void, any Error>).self) { group in
            for (index, row) in rows.enumerated() {
                group.addTask {
                    let started = Date()
                    do {
                        try await row.send()
                        return (index, Date().timeIntervalSince(started), .success(()))
                    } catch {
                        return (index, Date().timeIntervalSince(started), .failure(error))
                    }
                }
            }
            var all: [(Int, TimeInterval, Result<Void, any Error>)] = []
            for await outcome in group {
                all.append(outcome)
            }
            return all
        }

        XCTAssertEqual(outcomes.count, rows.count)
        for (index, elapsed, result) in outcomes {
            let row = rows[index]
            XCTAssertLessThanOrEqual(elapsed, row.budget + slack, "\(row.name): too late")
            switch (result, row.expected) {
            case (.success, nil):
                break
            case (.success, let kind?):
                XCTFail("\(row.name): expected a \(kind) error, got success")
            case (.failure(let error), let kind):
                guard let error = error as? NetworkError else {
                    XCTFail("\(row.name): untyped error \(error)")
                    continue
                }
                XCTAssertEqual(error.kind, kind, "\(row.name): \(error)")
                if let code = row.code {
                    XCTAssertEqual(error.urlError?.code, code, "\(row.name): \(error)")
                }
            }
        }
        // Every operation left the queue: each one finished.
        let deadline = Date().addingTimeInterval(slack)
        while queue.operationCount > 0 && Date() < deadline {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        XCTAssertEqual(queue.operationCount, 0, "operations still in the queue")
    }
}

/// A typed GET of a `Product`, with its own timeout.
private struct FaultGetProduct: APIRequest {
    typealias Response = Product
    var api: String
    var timeout: TimeInterval?
    var params: [String: Any]?
}

/// A typed GET of nothing, with its own timeout.
private struct FaultGetVoid: APIRequest {
    typealias Response = Void
    var api: String
    var timeout: TimeInterval?
}
