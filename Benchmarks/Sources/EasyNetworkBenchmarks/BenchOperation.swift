import EasyNetwork
import Foundation

/// The EasyNetwork side: a seed-style ServiceOperation subclass.
final class BenchOperation: ServiceOperation, @unchecked Sendable {
    struct Request: BaseAPIRequest {
        var api: String { "/bench" }
        var method: NetworkService.Method { .get }
        var query: NetworkService.QueryType { .path }
        var params: [String: Any]? { nil }
        var headers: [String: String]? { nil }
    }

    private let onDone: @Sendable (Bool) -> Void

    init(configuration: HostConfiguration, onDone: @escaping @Sendable (Bool) -> Void) {
        self.onDone = onDone
        super.init(configuration: configuration)
    }

    override func execute() {
        service.request(Request(), success: { [weak self] json in
            self?.done(json != nil)
        }, failure: { [weak self] _ in
            self?.done(false)
        })
    }

    private func done(_ ok: Bool) {
        onDone(ok)
        finish()
    }
}
