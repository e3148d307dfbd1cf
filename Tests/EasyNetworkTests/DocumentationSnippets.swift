import EasyNetwork
import EasyNetworkRetry
import EasyNetworkEnvelopes
import EasyNetworkUploads
import EasyNetworkTesting
import EasyNetworkPlugins
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

// The code of the DocC articles (Sources/*/*.docc), kept here so that it compiles with the
// library it describes; DocumentationTests checks that every article's code appears here
// (or in SeedUsageTests) line for line. The XCTestCase classes below are the Testing
// article's examples and run with the suite.

// MARK: The catalog's landing page

enum LandingSnippets {
    struct Profile: Decodable { let id: Int; let name: String }

    struct GetProfile: APIRequest {
        typealias Response = Profile
        var api: String { "/profile" }
    }

    func loadProfile(host: HostConfiguration, queue: NetworkQueue) async throws -> Profile {
        try await queue.send(GetProfile(), configuration: host)
    }
}

// MARK: Getting started

enum GettingStartedSnippets {
    static func seedFlow() {
        HostConfiguration.baseURL("https://api.example.com")
        let op = SignInOperation(userName: "u", password: "p")
        op.success = { item in print(item.userName) }
        op.failure = { error in print(error.localizedDescription) }
        NetworkQueue.shared.addOperation(op)
    }

    struct Profile: Decodable { let id: Int; let name: String }

    struct ProfileRequest: BaseAPIRequest {
        var api: String { "/profile" }         // a GET with no parameters: the defaults
    }

    func loadProfile(on queue: NetworkQueue, host: HostConfiguration) {
        let op = RequestOperation(request: ProfileRequest(), configuration: host, decoding: Profile.self)
        op.completion = { result in
            switch result {
            case .success(let profile): print(profile.name)
            case .failure(let error): print(error.kind, error.statusCode ?? 0)
            }
        }
        queue.addOperation(op)
    }

    struct GetAccount: APIRequest {
        typealias Response = Account
        let id: Int
        var api: String { "/accounts/\(id)" }
    }

    struct Account: Decodable, Sendable { let id: Int; let owner: String }

    func account(_ id: Int, on queue: NetworkQueue, host: HostConfiguration) async throws -> Account {
        try await queue.send(GetAccount(id: id), configuration: host)
    }

    func describe(_ error: NetworkError) -> String {
        if error.isCancelled { return "cancelled" }
        if error.isUnauthorized { return "sign in again" }
        if let status = error.statusCode { return "the server answered \(status)" }
        return error.localizedDescription
    }
}

// MARK: Embedding in an SDK

enum AcmeDiagnostics {
    static let recorded = Collector<String>()
    static func record(_ api: String, _ error: NetworkError) { recorded.append("\(api): \(error.kind)") }
}

struct AcmeSignIn: APIRequest {
    struct Session: Decodable, Sendable { let token: String }
    typealias Response = Session
    let user: String, password: String
    var api: String { "/sign_in" }
    var method: NetworkService.Method { .post }
    var query: NetworkService.QueryType { .json }
    var params: [String: Any]? { ["username": user, "password": password] }
}

enum EmbeddingSnippets {
    enum AcmeSDK {
        static let host: HostConfiguration = {
            let host = HostConfiguration(baseURL: URL(string: "https://api.acme.example/v1"))
            host.defaultHeaders = ["X-SDK-Version": "1.2.0"]
            host.timeout = 20
            host.callbackQueue = DispatchQueue(label: "com.acme.sdk.callbacks")
            host.errorHandler = { request, error in AcmeDiagnostics.record(request.api, error) }
            return host
        }()
        static let queue = NetworkQueue(maxConcurrentOperationCount: 4, name: "com.acme.sdk.network")
    }

    func observeSignOut(_ signOut: @escaping @Sendable () -> Void) -> NSObjectProtocol {
        NotificationCenter.default.addObserver(
            forName: HostConfiguration.unauthorizedOperationNotification,
            object: AcmeSDK.host,
            queue: nil
        ) { _ in signOut() }
    }

    func signIn(user: String, password: String) async throws -> String {
        try await AcmeSDK.queue.send(AcmeSignIn(user: user, password: password), configuration: AcmeSDK.host).token
    }
}

// MARK: Testing with EasyNetworkTesting

struct GetTestProfile: APIRequest {
    struct Profile: Decodable, Sendable { let id: Int; let name: String }
    typealias Response = Profile
    var api: String { "/profile" }
}

final class ProfileClientTests: XCTestCase {
    func testSendsTheTokenAndDecodesTheProfile() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/profile") { request in
            request.header("Authorization") == "Bearer t-1"
                ? .json(#"{"id": 7, "name": "Ana"}"#)
                : .status(401)
        }
        let host = HostConfiguration(baseURL: server.baseURL)
        host.defaultHeaders = ["Authorization": "Bearer t-1"]
        host.callbackQueue = DispatchQueue(label: "tests")

        let profile = try await NetworkQueue().send(GetTestProfile(), configuration: host)

        XCTAssertEqual(profile.name, "Ana")
        XCTAssertEqual(server.requests(path: "/profile").count, 1)
    }
}

final class ProfileFailureTests: XCTestCase {
    func testAServerErrorArrivesAsAnUnacceptableStatus() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/profile") { _ in .json(#"{"message": "down for maintenance"}"#, status: 503) }
        let host = HostConfiguration(baseURL: server.baseURL)
        host.callbackQueue = DispatchQueue(label: "tests")

        do {
            _ = try await NetworkQueue().send(GetTestProfile(), configuration: host)
            XCTFail("a 503 must fail")
        } catch let error as NetworkError {
            XCTAssertEqual(error.kind, .unacceptableStatus)
            XCTAssertEqual(error.statusCode, 503)
        }
    }
}

final class StubbedProfileTests: XCTestCase {
    func testReadsTheStubbedProfile() async throws {
        let stubs = HTTPStubs()
        stubs.stub("GET", path: "/v1/profile", reply: .json(#"{"id": 1, "name": "Stub"}"#))
        let host = HostConfiguration(
            baseURL: URL(string: "https://api.test/v1"),
            sessionConfiguration: stubs.makeSessionConfiguration()
        )
        host.callbackQueue = DispatchQueue(label: "tests")

        let profile = try await NetworkQueue().send(GetTestProfile(), configuration: host)

        XCTAssertEqual(profile.id, 1)
        XCTAssertEqual(stubs.requests.count, 1)
    }
}

// MARK: The testing kit's landing page

enum TestingKitSnippets {
    static func landing() throws -> HostConfiguration {
        let server = try LoopbackServer()
        server.route("GET", "/profile") { _ in .json(#"{"id": 7, "name": "Ana"}"#) }
        let host = HostConfiguration(baseURL: server.baseURL)
        return host
    }
}

// MARK: Migrating from Alamofire or the original post

enum MigrationSnippets {
    struct SearchItems: APIRequest {
        typealias Response = [SearchHit]
        let text: String
        var api: String { "/search" }
        var params: [String: Any]? { ["q": text] }
    }

    struct SearchHit: Decodable, Sendable { let id: Int; let title: String }

    func search(_ text: String, host: HostConfiguration, queue: NetworkQueue) async throws -> [SearchHit] {
        try await queue.send(SearchItems(text: text), configuration: host)
    }

    struct SigningInterceptor: RequestInterceptor {
        let key: String
        func adapt(_ urlRequest: URLRequest, context: RequestContext) throws -> URLRequest {
            var signed = urlRequest
            signed.setValue("\(key):\(urlRequest.url?.path ?? "")", forHTTPHeaderField: "X-Signature")
            return signed
        }
    }

    func installSigning(on host: HostConfiguration) {
        host.interceptors = [SigningInterceptor(key: "k-1")]
        host.retryPolicy = .default
    }
}

// MARK: Requests, parameters and results

enum RequestsAndResponsesSnippets {
    struct Order: Encodable { let sku: String; let quantity: Int; let deliverBy: Date }

    struct PlaceOrder: APIRequest {
        typealias Response = Void
        let order: Order
        var api: String { "/orders" }
        var method: NetworkService.Method { .post }
        var encodableBody: (any Encodable)? { order }       // "deliverBy": "2026-11-23T10:00:00Z"
    }

    func decodeISO8601Dates(inResponsesOf host: HostConfiguration) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        host.jsonDecoder = decoder
    }

    struct Photo: Decodable, Sendable { let id: Int }

    struct UploadPhoto: APIRequest {
        typealias Response = Photo
        let file: URL
        var api: String { "/photos" }
        var method: NetworkService.Method { .post }
        var params: [String: Any]? { ["caption": "Holiday"] }          // become text fields
        var multipartBody: MultipartFormData? {
            var form = MultipartFormData()
            form.append(fileAt: file, name: "photo")                    // filename and MIME type from the URL
            return form
        }
    }

    func upload(_ file: URL, host: HostConfiguration, queue: NetworkQueue,
                showProgress: @escaping @Sendable (Double) -> Void) async throws -> Photo {
        let upload = RequestOperation(request: UploadPhoto(file: file), configuration: host, decoding: Photo.self)
        upload.onUploadProgress = { progress in showProgress(progress.fractionCompleted) }
        return try await queue.run(upload)
    }

    struct User: Decodable, Sendable { let id: Int; let name: String }

    struct GetUser: APIRequest {
        typealias Response = User                 // any Decodable, Data, String or Void
        let id: Int
        var api: String { "/users/\(id)" }         // method GET, query .path by default
    }

    func user(_ id: Int, host: HostConfiguration, queue: NetworkQueue) async throws -> User {
        try await queue.send(GetUser(id: id), configuration: host)
    }

    func user(_ id: Int, host: HostConfiguration, queue: NetworkQueue,
              completion: @escaping @Sendable (Result<User, NetworkError>) -> Void) {
        queue.send(GetUser(id: id), configuration: host, completion: completion)
    }

    struct Flags: Decodable, Sendable { let newCheckout: Bool }

    func flags(host: HostConfiguration, queue: NetworkQueue) async throws -> Flags {
        try await queue.send(.get("/flags", query: ["v": "2"]), as: Flags.self, configuration: host)
    }

    func track(_ name: String, host: HostConfiguration, queue: NetworkQueue,
               completion: @escaping @Sendable (Result<Void, NetworkError>) -> Void) {
        queue.send(AdHocRequest(.put, "/events", params: ["name": name], encoding: .form), configuration: host, completion: completion)
    }
}

// MARK: Errors and guarantees, envelopes, interceptors

/// Stands for an SDK's own error reporter.
final class ErrorReporter: Sendable {
    func record(_ api: String, _ error: NetworkError) {}
}

enum ErrorsEnvelopesInterceptorsSnippets {
    func reportFailures(of host: HostConfiguration, to reporter: ErrorReporter) {
        host.errorHandler = { request, error in reporter.record(request.api, error) }
    }

    func debugDescription(of error: NetworkError) -> String {
        error.localizedDescription + " Body: " + (error.bodySnippet ?? "none")
    }

    func quoteServerMessages(of host: HostConfiguration) {
        host.errorSentencesQuoteServerMessages = true
    }

    func describeEnvelopes(of host: HostConfiguration) {
        // {"success": true, "data": {...}, "message": "...", "code": "E42"}
        host.envelope = .successFlag()

        // {"code": 0, "msg": "", "data": {...}, "traceId": "..."}
        host.envelope = .codeEquals(0, unauthorizedCodes: ["401001"])   // "token expired" codes act like HTTP 401

        // {"errcode": 0, "errmsg": "ok", ...fields at the top level}
        host.envelope = .codeEquals(0, codeKey: "errcode", messageKey: "errmsg", payloadKey: nil)

        // anything else
        host.envelope = ResponseEnvelope(success: .custom { $0["status"] as? String == "OK" }, payloadKey: "result")
    }

    func configureRequests(of host: HostConfiguration, sign: @escaping @Sendable (URLRequest) -> String,
                           record: @escaping @Sendable (String, RequestMetrics) -> Void) {
        // interceptors: adapt (sign, add headers; may fail), willSend, didReceive, validate, didFinish
        host.interceptors = [
            ClosureInterceptor(adapt: { request, _ in
                var signed = request
                signed.setValue(sign(request), forHTTPHeaderField: "X-Sign")
                return signed
            }),
            ClosureInterceptor(didFinish: { outcome, context in record(context.request.api, outcome.metrics) }),
        ]
        // retries: bounded, exponential backoff with jitter, idempotent methods only unless you opt in,
        // 408/429/500/502/503/504 and transient transport errors (a reset, a body cut short), Retry-After honoured (capped)
        host.retryPolicy = .default                 // .none is the host default
        host.timeout = 20                           // idle seconds (default 60); a request may set its own
        host.totalTimeout = 300                     // a cap per attempt; nil (the default): none
    }
}
