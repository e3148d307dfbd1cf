import Foundation
internal import BetaNet  // the SDK's own copy of EasyNetwork, kept out of its interface

/// A stand-in for a binary SDK that compiles a renamed copy of EasyNetwork (module BetaNet).
/// Its public interface names no BetaNet type.
public enum BetaSDK {
    private static let host = HostConfiguration(baseURL: nil)
    private static let queue = NetworkQueue(name: nil)

    /// Posts the seed's sign-in to `path` on `baseURL` and calls back with the user name the
    /// server returned, or the error.
    public static func signIn(
        baseURL: URL,
        path: String = "/sign_in",
        userName: String,
        completion: @escaping @Sendable (Result<String, any Error>) -> Void
    ) {
        host.baseURL = baseURL
        let operation = SignInOperation(host: host, path: path, userName: userName)
        operation.success = { completion(.success($0.userName)) }
        operation.failure = { completion(.failure($0)) }
        queue.addOperation(operation)
    }

    /// What identifies this SDK's copy at run time; every value must differ from the other
    /// copies' values.
    public static var copyNames: [String: String] {
        [
            "Swift type name": String(reflecting: ServiceOperation.self),
            "runtime class name": NSStringFromClass(ServiceOperation.self),
            "401 notification name": HostConfiguration.unauthorizedOperationNotification.rawValue,
            "NSError domain": NetworkError.errorDomain,
            "operation queue name": queue.operationQueue.name ?? "",
        ]
    }
}

private struct SignInItem: ParsedItem { let userName: String; let token: String }

private final class SignInRequest: BaseAPIRequest {
    let api: String, userName: String
    init(api: String, userName: String) { self.api = api; self.userName = userName }
    var method: NetworkService.Method { .post }
    var query: NetworkService.QueryType { .json }
    var params: [String: Any]? { ["username": userName, "password": "p"] }
    var headers: [String: String]? { defaultJsonHeader() }
}

private final class SignInResponseMapper: ResponseMapper<SignInItem>, ResponseMapperProtocol {
    static func process(_ obj: Any?) throws -> SignInItem {
        try process(obj, parse: { json in
            guard let name = json["userName"] as? String, let token = json["token"] as? String else { return nil }
            return SignInItem(userName: name, token: token)
        })
    }
}

private final class SignInOperation: ServiceOperation, @unchecked Sendable {
    private let request: SignInRequest
    var success: ((SignInItem) -> Void)?
    var failure: ((Error) -> Void)?
    init(host: HostConfiguration, path: String, userName: String) {
        request = SignInRequest(api: path, userName: userName)
        super.init(configuration: host)
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
