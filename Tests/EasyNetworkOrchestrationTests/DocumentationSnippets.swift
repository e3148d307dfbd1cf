import EasyNetwork
import EasyNetworkOrchestration
import Foundation

// The code of EasyNetworkOrchestration.docc, compiled (DocumentationTests finds it here).
enum OrchestrationDocumentationSnippets {
    struct Session: Decodable, Sendable { let token: String }
    struct Profile: Decodable, Sendable { let id: Int; let hasAvatar: Bool }
    struct Avatar: Decodable, Sendable { let url: String }

    struct SignIn: APIRequest {
        typealias Response = Session
        let user: String
        var api: String { "/sign_in" }
        var method: NetworkService.Method { .post }
        var params: [String: Any]? { ["user": user] }
    }

    struct GetProfile: APIRequest {
        typealias Response = Profile
        let token: String
        var api: String { "/profile" }
        var headers: [String: String]? { ["Authorization": "Bearer \(token)"] }
    }

    struct GetAvatar: APIRequest {
        typealias Response = Avatar
        let id: Int
        var api: String { "/avatars/\(id)" }
    }

    @discardableResult
    func loadAvatar(host: HostConfiguration, queue: NetworkQueue) -> ChainHandle {
        // each step built from the last result; runs on the queue through dependencies
        RequestChain(SignIn(user: "ana"), configuration: host)
            .then { session in GetProfile(token: session.token) }
            .then { profile in profile.hasAvatar ? GetAvatar(id: profile.id) : nil }   // nil ends early
            .start(on: queue) { result in
                switch result {
                case .success(let outcome): print(outcome.last?.url ?? "no avatar", outcome.results.count)
                case .failure(let error): print("step \(error.step) failed: \(error.error)")   // step is 0-based
                }
            }
    }

    struct User: Decodable, Sendable { let id: Int; let name: String }

    struct GetUser: APIRequest {
        typealias Response = User
        let id: Int
        var api: String { "/users/\(id)" }
    }

    func loadUsers(_ ids: [Int], host: HostConfiguration, queue: NetworkQueue,
                   show: @escaping @Sendable ([User]) -> Void) -> RequestBatch<User> {
        // results in order when all are done, or each as it arrives
        let batch = RequestBatch(requests: ids.map { GetUser(id: $0) }, configuration: host, policy: .settleAll)  // or .failFast
        batch.onResult = { index, result in print("#\(index): \(result)") }
        batch.onProgress = { completed, total in print("\(completed) of \(total)") }
        batch.completion = { results in show(results.compactMap { try? $0.get() }) }
        batch.start(on: queue)                    // batch.cancel() cancels every member
        return batch
    }

    final class ProfileScreen {
        let requests = CancellationBag()          // cancels what is left when the screen goes

        func load(host: HostConfiguration, queue: NetworkQueue) {
            let op = RequestOperation(request: GetUser(id: 1), configuration: host, decoding: User.self)
            op.tags = ["profile-screen"]          // queue.cancelOperations(tagged: "profile-screen") cancels it too
            requests.insert(op)
            queue.addOperation(op)
        }
    }

    func shareIdenticalRequests(on host: HostConfiguration) {
        host.coalescesRequests = true             // identical GETs in flight share one network request
    }
}
