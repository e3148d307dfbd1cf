#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

extension HostConfiguration {
    /// Tokens for this host's requests, refreshed once however many fail together;
    /// `nil` (the default) sends no token. See ``TokenAuthenticator``.
    ///
    /// Setting an authenticator installs it for the requests that start afterwards:
    ///
    /// ```swift
    /// import EasyNetworkPlugins
    ///
    /// host.authenticator = TokenAuthenticator(token: savedToken) { done in
    ///     refreshSession { result in done(result) }
    /// }
    /// ```
    public var authenticator: TokenAuthenticator? {
        get { feature(TokenAuthenticator.self) }
        set {
            newValue?.host = self
            setFeature(newValue, as: TokenAuthenticator.self)
        }
    }
}
