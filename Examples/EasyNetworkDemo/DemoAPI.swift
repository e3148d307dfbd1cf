import EasyNetwork
import EasyNetworkUploads
import Foundation

// What an SDK author writes: requests, items, mappers and one operation subclass.

struct SignInItem: ParsedItem {
    let userName: String
    let token: String
}

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
        super.init()
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

struct ListItem: ParsedItem {
    let id: Int
    let title: String
}

final class ListItemMapper: ResponseMapper<ListItem>, ResponseMapperProtocol {
    static func process(_ obj: Any?) throws -> ListItem {
        try process(obj, parse: { json in
            guard let id = json["id"] as? Int, let title = json["title"] as? String else { return nil }
            return ListItem(id: id, title: title)
        })
    }
}

struct Profile: Decodable {
    let id: Int
    let name: String
    let email: String
}

/// A GET request to a path, for endpoints that need nothing else.
struct GetRequest: BaseAPIRequest {
    let api: String
    var timeout: TimeInterval?
    var method: NetworkService.Method { .get }
    var query: NetworkService.QueryType { .path }
    var params: [String: Any]? { nil }
    var headers: [String: String]? { nil }
}

/// A typed request: it names its response type, so no mapper is written.
struct GetProfileV2: APIRequest {
    typealias Response = Profile
    var api: String { "/v2/profile" }
}

/// A typed request with an Encodable body whose result does not matter.
struct PlaceOrder: APIRequest {
    typealias Response = Void
    struct Order: Encodable { let sku: String; let quantity: Int }
    let order: Order
    var api: String { "/v2/orders" }
    var method: NetworkService.Method { .post }
    var encodableBody: (any Encodable)? { order }
}

/// The token refresh call; it must not carry the (expired) token itself.
struct RefreshTokenRequest: APIRequest {
    struct Token: Decodable { let token: String }
    typealias Response = Token
    var api: String { "/v3/refresh" }
    var method: NetworkService.Method { .post }
    var requiresAuthentication: Bool { false }
}

struct GetMe: APIRequest {
    typealias Response = Profile
    var api: String { "/v3/me" }
}

struct GetNews: APIRequest {
    typealias Response = [String]
    var api: String { "/v3/news" }
}

struct Cart: Decodable, Sendable { let cartId: Int; let items: Int }
struct Quote: Decodable, Sendable { let cartId: Int; let total: Int }
struct Thumb: Decodable, Sendable { let id: Int; let bytes: Int }

struct GetCart: APIRequest {
    typealias Response = Cart
    var api: String { "/v4/cart" }
}

struct GetQuote: APIRequest {
    typealias Response = Quote
    let cartId: Int
    var api: String { "/v4/quote" }
    var params: [String: Any]? { ["cart": cartId] }
}

struct GetThumb: APIRequest {
    typealias Response = Thumb
    let id: Int
    var api: String { "/v4/thumb/\(id)" }
}

/// A file of `bytes` bytes from the server (the loopback server's `/large/{n}` route).
struct GetAsset: BaseAPIRequest {
    let bytes: Int
    var api: String { "/large/\(bytes)" }
    var method: NetworkService.Method { .get }
    var query: NetworkService.QueryType { .path }
    var params: [String: Any]? { nil }
    var headers: [String: String]? { nil }
}

/// A multipart upload of a file and a caption.
struct UploadPhoto: APIRequest {
    typealias Response = [String: Int]
    let file: URL
    var api: String { "/v5/upload" }
    var method: NetworkService.Method { .post }
    var params: [String: Any]? { ["caption": "Holiday"] }
    var multipartBody: MultipartFormData? {
        var form = MultipartFormData()
        form.append(fileAt: file, name: "photo")
        return form
    }
}
