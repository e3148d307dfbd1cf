import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest

struct GetText: APIRequest {
    typealias Response = String
    var api: String
}

struct GetBytes: APIRequest {
    typealias Response = Data
    var api: String
}

struct DeleteThing: APIRequest {
    typealias Response = Void
    var api: String
    var method: NetworkService.Method { .delete }
}

struct CreateUser: APIRequest {
    typealias Response = User
    let user: User
    var api: String { "/users" }
    var method: NetworkService.Method { .post }
    var encodableBody: (any Encodable)? { user }
    var params: [String: Any]? { ["notify": true] }
}

struct Stamp: Encodable {
    let at: Date
}

struct PostStamp: APIRequest {
    typealias Response = Void
    var api: String { "/echo" }
    var method: NetworkService.Method { .post }
    var encodableBody: (any Encodable)? { Stamp(at: Date(timeIntervalSince1970: 0)) }
}

struct BadBody: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Double.nan)
    }
}

struct PostBad: APIRequest {
    typealias Response = Void
    var api: String { "/echo" }
    var method: NetworkService.Method { .post }
    var encodableBody: (any Encodable)? { BadBody() }
}

final class TypedRequestTests: ServerTestCase {
    private let queue = NetworkQueue(maxConcurrentOperationCount: 4)

    private func send<R: APIRequest>(_ request: R, host: HostConfiguration) -> Result<R.Response, NetworkError>? {
        let done = expectation(description: "send")
        let results = Collector<Result<R.Response, NetworkError>>()
        queue.send(request, configuration: host) { result in
            results.append(result)
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(results.count, 1)
        return results.values.first
    }

    /// Waits (polling) until `condition` holds, at most `seconds`.
    private func poll(upTo seconds: TimeInterval = 5, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() && Date() < deadline {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }

    /// Fails unless `task` ends with a cancellation.
    private func assertCancelled<T: Sendable>(_ task: Task<T, Error>, file: StaticString = #filePath, line: UInt = #line) async {
        do {
            _ = try await task.value
            XCTFail("must be cancelled", file: file, line: line)
        } catch let error as NetworkError {
            XCTAssertTrue(error.isCancelled, "\(error)", file: file, line: line)
        } catch {
            XCTFail("not a NetworkError: \(error)", file: file, line: line)
        }
    }

    func testDecodableResponseWithNoMapper() throws {
        server.route("GET", "/users/1") { _ in .json(#"{"id": 1, "name": "ana"}"#) }
        XCTAssertEqual(try send(GetUser(path: "/users/1"), host: makeHost())?.get(), User(id: 1, name: "ana"))
    }

    func testHostDecoderStrategiesApply() throws {
        struct Event: Decodable, Equatable { let startsAt: Date; let eventName: String }
        struct GetEvent: APIRequest { typealias Response = Event; var api: String { "/event" } }
        server.route("GET", "/event") { _ in .json(#"{"starts_at": "2026-01-02T03:04:05Z", "event_name": "launch"}"#) }
        let host = makeHost()
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        host.jsonDecoder = decoder
        let event = try send(GetEvent(), host: host)?.get()
        XCTAssertEqual(event?.eventName, "launch")
        XCTAssertEqual(event?.startsAt, Date(timeIntervalSince1970: 1_767_323_045))
    }

    func testStringUsesTheCharsetOfTheContentType() throws {
        let latin1 = Data([0x63, 0x61, 0x66, 0xE9])  // "café" in ISO-8859-1
        server.route("GET", "/latin1") { _ in .data(latin1, contentType: "text/plain; charset=ISO-8859-1") }
        server.route("GET", "/utf8") { _ in .text("naïve ✓") }
        server.route("GET", "/nocharset") { _ in .data(Data("plain ü".utf8), contentType: "text/plain") }
        server.route("GET", "/badutf8") { _ in .data(Data([0xFF, 0xFE, 0xFD]), contentType: "text/plain; charset=utf-8") }
        let host = makeHost()
        XCTAssertEqual(try send(GetText(api: "/latin1"), host: host)?.get(), "café")
        XCTAssertEqual(try send(GetText(api: "/utf8"), host: host)?.get(), "naïve ✓")
        XCTAssertEqual(try send(GetText(api: "/nocharset"), host: host)?.get(), "plain ü")
        guard case .failure(let error)? = send(GetText(api: "/badutf8"), host: host) else { return XCTFail("must fail") }
        XCTAssertEqual(error.kind, .decoding)
    }

    func testDataAndVoidResults() throws {
        let host = makeHost()
        XCTAssertEqual(try send(GetBytes(api: "/large/1000"), host: host)?.get().count, 1000)
        server.route("DELETE", "/things/1") { _ in .noContent }
        XCTAssertNoThrow(try send(DeleteThing(api: "/things/1"), host: host)?.get())
        XCTAssertEqual(server.requests(path: "/things/1").first?.method, "DELETE")
    }

    func testEncodableBodyUsesHostEncoderAndParamsGoToTheQuery() throws {
        server.route("POST", "/users") { request in .data(request.body, contentType: "application/json") }
        let host = makeHost()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        host.jsonEncoder = encoder
        XCTAssertEqual(try send(CreateUser(user: User(id: 5, name: "eve")), host: host)?.get(), User(id: 5, name: "eve"))
        let recorded = server.requests(path: "/users").first
        XCTAssertEqual(String(decoding: recorded?.body ?? Data(), as: UTF8.self), #"{"id":5,"name":"eve"}"#)
        XCTAssertEqual(recorded?.query, "notify=true")
        XCTAssertEqual(recorded?.header("Content-Type"), "application/json")

        encoder.dateEncodingStrategy = .iso8601
        _ = send(PostStamp(), host: host)
        XCTAssertEqual(server.requests(path: "/echo").last.map { String(decoding: $0.body, as: UTF8.self) }, #"{"at":"1970-01-01T00:00:00Z"}"#)
    }

    /// Issue 20: a `Date` in an `encodableBody` went out as seconds since 2001
    /// (`JSONEncoder`'s default), which no backend expects. A new host's encoder writes
    /// ISO 8601; a host given its own encoder keeps that encoder's strategy.
    func testANewHostSendsDatesInISO8601() throws {
        XCTAssertNotNil(send(PostStamp(), host: makeHost()))
        XCTAssertEqual(server.requests(path: "/echo").last.map { String(decoding: $0.body, as: UTF8.self) }, #"{"at":"1970-01-01T00:00:00Z"}"#)

        let host = makeHost()
        host.jsonEncoder = JSONEncoder()
        XCTAssertNotNil(send(PostStamp(), host: host))
        XCTAssertEqual(server.requests(path: "/echo").last.map { String(decoding: $0.body, as: UTF8.self) }, #"{"at":-978307200}"#,
                       "a plain JSONEncoder keeps Foundation's default")
    }

    func testUnencodableBodyIsAnEncodingErrorAndNothingIsSent() {
        guard case .failure(let error)? = send(PostBad(), host: makeHost()) else { return XCTFail("must fail") }
        XCTAssertEqual(error.kind, .encoding)
        XCTAssertTrue(error.message?.contains("BadBody") ?? false, error.message ?? "")
        XCTAssertEqual(server.requests.count, 0)
    }

    // MARK: async / await

    func testAsyncSend() async throws {
        server.route("GET", "/users/2") { _ in .json(#"{"id": 2, "name": "bo"}"#) }
        let user = try await queue.send(GetUser(path: "/users/2"), configuration: makeHost())
        XCTAssertEqual(user, User(id: 2, name: "bo"))
    }

    func testAsyncSendThrowsNetworkError() async {
        do {
            _ = try await queue.send(GetUser(path: "/status/503"), configuration: makeHost())
            XCTFail("must throw")
        } catch let error as NetworkError {
            XCTAssertEqual(error.statusCode, 503)
        } catch {
            XCTFail("unexpected \(error)")
        }
    }

    func testCancellingTheTaskCancelsTheRequestMidFlight() async throws {
        let host = makeHost()
        let started = Date()
        let queue = self.queue
        let task = Task { [queue, host] in try await queue.send(GetUser(path: "/delay/3000"), configuration: host) }
        try await poll { !server.requests(path: "/delay/3000").isEmpty }
        task.cancel()
        await assertCancelled(task)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        // The operation finishes right after its callbacks, which resumed this task.
        try await poll { queue.operationCount == 0 }
        XCTAssertEqual(queue.operationCount, 0)
    }

    func testAsyncSendFromACancelledTaskThrowsACancellationAndSendsNothing() async throws {
        let host = makeHost()
        let queue = self.queue
        let task = Task { [queue, host] in
            // Cancelled before it sends: the operation is cancelled before it is queued.
            while !Task.isCancelled { await Task.yield() }
            return try await queue.send(GetUser(path: "/users/9"), configuration: host)
        }
        task.cancel()
        await assertCancelled(task)
        XCTAssertTrue(server.requests(path: "/users/9").isEmpty)
    }

    func testCancellingATaskWaitingForASlotThrowsAtOnceAndSendsNothing() async throws {
        let host = makeHost()
        let queue = NetworkQueue(maxConcurrentOperationCount: 1)
        let started = Date()
        let busy = Task { [queue, host] in try await queue.send(GetUser(path: "/delay/3000"), configuration: host) }
        try await poll { !server.requests(path: "/delay/3000").isEmpty }
        let waiting = Task { [queue, host] in try await queue.send(GetUser(path: "/users/8"), configuration: host) }
        try await poll { queue.operationCount >= 2 }
        waiting.cancel()
        await assertCancelled(waiting)
        // Resumed while the first request still holds the only slot.
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        busy.cancel()
        _ = try? await busy.value
        XCTAssertTrue(server.requests(path: "/users/8").isEmpty)
    }

    func testClosuresSetOnASendsOperationFoundInTheQueueAreStillCalled() async throws {
        server.route("GET", "/users/7") { _ in .json(#"{"id": 7, "name": "al"}"#) }
        let host = makeHost()
        let queue = NetworkQueue(maxConcurrentOperationCount: 1)
        queue.isSuspended = true  // the operation waits where `operations` shows it
        let task = Task { [queue, host] in try await queue.send(GetUser(path: "/users/7"), configuration: host) }
        var found: RequestOperation<User>?
        try await poll {
            found = queue.operations.lazy.compactMap { $0 as? RequestOperation<User> }.first
            return found != nil
        }
        let operation = try XCTUnwrap(found)
        let names = Collector<String>()
        operation.success = { names.append($0.name) }
        operation.completion = { result in names.append((try? result.get().name).map { "completion " + $0 } ?? "failed") }
        queue.isSuspended = false
        let user = try await task.value
        XCTAssertEqual(user, User(id: 7, name: "al"))
        XCTAssertEqual(names.values, ["al", "completion al"])
    }

    func testAsyncRunOfAnyOperationWaitsForItsEnd() async throws {
        server.route("POST", "/sign_in") { _ in .json(#"{"userName": "ana", "token": "t"}"#) }
        let op = SignInOperation(userName: "ana", password: "x", configuration: makeHost())
        let names = Collector<String>()
        op.success = { names.append($0.userName) }
        try await queue.run(op)
        XCTAssertTrue(op.isFinished)
        XCTAssertEqual(names.values, ["ana"])
    }

    func testAsyncRunOfACancelledOperationThrows() async {
        let op = RequestOperation(request: TestRequest("/echo"), configuration: makeHost(), responseDecoder: .data)
        op.cancel()
        do {
            _ = try await queue.run(op)
            XCTFail("must throw")
        } catch let error as NetworkError {
            XCTAssertTrue(error.isCancelled)
        } catch {
            XCTFail("unexpected \(error)")
        }
    }

    func testAddingAnOperationTwiceIsIgnoredNotACrash() async throws {
        let op = RequestOperation(request: TestRequest("/echo"), configuration: makeHost(), responseDecoder: .data)
        queue.addOperation(op)
        queue.addOperation(op)
        let data = try await queue.run(op)
        XCTAssertFalse(data.isEmpty)
        queue.addOperation(op)
        XCTAssertEqual(server.requests(path: "/echo").count, 1)
    }
}
