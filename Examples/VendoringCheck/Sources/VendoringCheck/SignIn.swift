import EasyNetwork
import Foundation

// The app's own use of EasyNetwork: the README's seed flow on a host and queue of its own.

struct SignInItem: ParsedItem { let userName: String; let token: String }

final class SignInRequest: BaseAPIRequest {
    let api: String, userName: String
    init(api: String, userName: String) { self.api = api; self.userName = userName }
    var method: NetworkService.Method { .post }
    var query: NetworkService.QueryType { .json }
    var params: [String: Any]? { ["username": userName, "password": "p"] }
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
