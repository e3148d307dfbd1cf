import EasyNetwork
import EasyNetworkPlugins
import Foundation

// The code of EasyNetworkPlugins.docc, compiled (DocumentationTests finds it here).
enum PluginsDocumentationSnippets {
    static func installAnAuthenticator(host: HostConfiguration, savedToken: String?) {
        host.authenticator = TokenAuthenticator(token: savedToken) { done in
            refreshSession { result in done(result) }     // Result<String, Error>
        }
    }

    struct RefreshRequest: APIRequest {
        struct Token: Decodable, Sendable { let token: String }
        typealias Response = Token
        var api: String { "/auth/refresh" }
        var method: NetworkService.Method { .post }
        var requiresAuthentication: Bool { false }          // sent without the expired token
    }

    func installTokensAndLogging(on host: HostConfiguration, queue: NetworkQueue, savedToken: String?) {
        host.authenticator = TokenAuthenticator(token: savedToken) { [weak host] in   // the host keeps its authenticator
            guard let host else { throw CancellationError() }
            return try await queue.send(RefreshRequest(), configuration: host).token
        }
        host.interceptors = [LoggingInterceptor.console(level: .info)]   // or LoggingInterceptor(level:) { level, text in ... }
    }

    /// Stands for the app's own sign-in refresh.
    private static func refreshSession(_ completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        completion(.success("fresh"))
    }
}
