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

    /// Stands for the app's own sign-in refresh.
    private static func refreshSession(_ completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        completion(.success("fresh"))
    }
}
