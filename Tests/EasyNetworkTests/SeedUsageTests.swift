import EasyNetwork
import EasyNetworkTesting
import Foundation
import XCTest

// The code an SDK author writes, exactly as the core issue gives it.

struct SignInItem: ParsedItem { let userName: String; let token: String }

final class SignInRequest: BaseAPIRequest {
    private let userName: String, password: String
    init(userName: String, password: String) { self.userName = userName; self.password = password }
    var method: NetworkService.Method { .post }
    var query: NetworkService.QueryType { .json }
    var params: [String: Any]? { ["username": userName, "password": password] }
    var api: String { "/sign_in" }
    var headers: [String: String]? { defaultJsonHeader() }
}

final class SignInResponseMapper: ResponseMapper<SignInItem>, ResponseMapperProtocol {
    static func process(_ obj: Any?) throws -> SignInItem {
        try process(obj, parse: { json in
            guard let name = json["userName"] as? String, let token = json["token"] as? String else { return nil }
            return SignInItem(userName: name, token: token)
        })
    }
}

final class SignInOperation: ServiceOperation, @unchecked Sendable {
    private let request: SignInRequest
    var success: ((SignInItem) -> Void)?
    var failure: ((Error) -> Void)?
    init(userName: String, password: String) {
        request = SignInRequest(userName: userName, password: password)
        super.init()                        // or super.init(configuration: someOtherHost)
    }
    init(userName: String, password: String, configuration: HostConfiguration) {
        request = SignInRequest(userName: userName, password: password)
        super.init(configuration: configuration)
    }
    override func execute() {
        service.request(request, success: { [weak self] in self?.handleSuccess($0) },
                        failure: { [weak self] in self?.handleFailure($0) })
    }
    private func handleSuccess(_ response: Any?) {
        do { success?(try SignInResponseMapper.process(response)); finish() } catch { handleFailure(error) }
    }
    private func handleFailure(_ error: Error) { failure?(error); finish() }
}

final class SeedUsageTests: ServerTestCase {
    private func installSignIn() {
        server.route("POST", "/sign_in") { request in
            guard let body = request.jsonBody() as? [String: Any],
                  let user = body["username"] as? String,
                  body["password"] as? String == "secret"
            else { return .json(#"{"error": "wrong password"}"#, status: 403) }
            return .json(object: ["userName": user, "token": "t-\(user)"])
        }
    }

    func testSeedFlowOnSharedHostDeliversOnMainQueue() {
        installSignIn()
        XCTAssertTrue(HostConfiguration.baseURL(server.baseURL.absoluteString))
        defer { HostConfiguration.shared.baseURL = nil }

        let done = expectation(description: "signed in")
        let op = SignInOperation(userName: "ana", password: "secret")
        op.success = { item in
            XCTAssertTrue(Thread.isMainThread)
            XCTAssertEqual(item.userName, "ana")
            XCTAssertEqual(item.token, "t-ana")
            done.fulfill()
        }
        op.failure = { error in XCTFail("unexpected \(error)") }
        NetworkQueue.shared.addOperation(op)
        wait(for: [done], timeout: 10)

        let recorded = server.requests(path: "/sign_in")
        XCTAssertEqual(recorded.count, 1)
        XCTAssertEqual(recorded.first?.method, "POST")
        XCTAssertEqual(recorded.first?.header("content-type"), "application/json")
        XCTAssertEqual(recorded.first?.jsonBody() as? [String: String], ["username": "ana", "password": "secret"])
        waitUntilFinished(op)
    }

    func testSeedFlowFailureCarriesServerMessageAndStatus() {
        installSignIn()
        let host = makeHost()
        let done = expectation(description: "failed")
        let op = SignInOperation(userName: "ana", password: "nope", configuration: host)
        op.success = { _ in XCTFail("must fail") }
        op.failure = { error in
            let networkError = error as? NetworkError
            XCTAssertEqual(networkError?.statusCode, 403)
            XCTAssertEqual(networkError?.kind, .unacceptableStatus)
            XCTAssertEqual(networkError?.serverMessage, "wrong password")
            XCTAssertTrue(error.localizedDescription.contains("403"))
            done.fulfill()
        }
        NetworkQueue.shared.addOperation(op)
        wait(for: [done], timeout: 10)
        waitUntilFinished(op)
    }

    func testMapperFailureReachesFailureAndFinishes() {
        server.route("POST", "/sign_in") { _ in .json(#"{"userName": "ana"}"#) }
        let host = makeHost()
        let done = expectation(description: "failed")
        let op = SignInOperation(userName: "ana", password: "secret", configuration: host)
        // The seed's handleSuccess maps only when a success closure is set.
        op.success = { _ in XCTFail("must not map") }
        op.failure = { error in
            XCTAssertEqual(error as? ResponseMapperError, .missingAttribute)
            done.fulfill()
        }
        NetworkQueue.shared.addOperation(op)
        wait(for: [done], timeout: 10)
        waitUntilFinished(op)
    }

    func testCancellingSeedOperationInFlightFinishesItWithCancellation() {
        server.route("POST", "/sign_in") { _ in .delayed(5, .json("{}")) }
        let host = makeHost()
        let done = expectation(description: "cancelled")
        let op = SignInOperation(userName: "ana", password: "secret", configuration: host)
        op.failure = { error in
            XCTAssertTrue((error as? NetworkError)?.isCancelled == true)
            done.fulfill()
        }
        let queue = NetworkQueue(maxConcurrentOperationCount: 2)
        queue.addOperation(op)
        waitForRequests(path: "/sign_in", count: 1)
        let started = Date()
        op.cancel()
        wait(for: [done], timeout: 5)
        waitUntilFinished(op)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }
}

extension XCTestCase {
    /// Waits (spinning the run loop) until `operation.isFinished`.
    func waitUntilFinished(_ operation: Operation, timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(timeout)
        while !operation.isFinished && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.005))
        }
        XCTAssertTrue(operation.isFinished, "operation did not finish", file: file, line: line)
    }
}

extension ServerTestCase {
    /// Waits until the server has received `count` requests for `path`.
    func waitForRequests(path: String, count: Int, timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(timeout)
        while server.requests(path: path).count < count && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.005))
        }
        XCTAssertGreaterThanOrEqual(server.requests(path: path).count, count, "server did not see the requests", file: file, line: line)
    }
}
