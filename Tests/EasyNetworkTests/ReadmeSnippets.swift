import EasyNetwork
import Foundation

// The Swift code of README.md, kept here so that it compiles with the library it describes;
// DocumentationTests checks that every README block appears here line for line. The
// README's Quick start is also built as a new package and run against the demo's
// `--serve` by Scripts/check-quickstart.sh (in .ci/run).

/// The Quick start (README "Quick start"): its file, in a namespace of its own (the seed's
/// types of SeedUsageTests have the same names).
enum ReadmeQuickStart {
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

    enum QuickStart {
        static let host = HostConfiguration(baseURL: URL(string: "http://127.0.0.1:8765"))
        static let queue = NetworkQueue()

        static func signIn(completion: @escaping @Sendable (String) -> Void) {
            let op = SignInOperation(userName: "ana", password: "secret", configuration: host)
            op.success = { item in completion("signed in as \(item.userName), token \(item.token)") }
            op.failure = { error in completion("failed: \(error.localizedDescription)") }
            queue.addOperation(op)
        }
    }

    /// The executable's `main.swift`, as a function (top-level code cannot live in a test).
    static func main() -> Never {
        QuickStart.signIn { message in
            print(message)
            exit(0)
        }
        dispatchMain()
    }

    struct Profile: Decodable, Sendable { let id: Int; let name: String; let email: String }

    struct GetProfile: APIRequest {
        typealias Response = Profile
        var api: String { "/profile" }
    }

    func loadProfile() async throws -> Profile {
        try await QuickStart.queue.send(GetProfile(), configuration: QuickStart.host)
    }

    struct Flags: Decodable, Sendable { let newCheckout: Bool }

    func loadFlags() async throws -> Flags {
        try await QuickStart.queue.send(.get("/flags", query: ["v": "2"]), as: Flags.self, configuration: QuickStart.host)
    }

    func reportOpened() async throws {
        try await QuickStart.queue.send(.post("/events", json: ["name": "opened"]), configuration: QuickStart.host)
    }
}
