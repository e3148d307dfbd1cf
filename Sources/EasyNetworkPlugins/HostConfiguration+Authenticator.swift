#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
import EasyNetworkFeatures
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
    @_alwaysEmitIntoClient  // a host setting's accessors (see ARCHITECTURE.md): no modify coroutine in the module
    public var authenticator: TokenAuthenticator? {
        get { tokenAuthenticator() }
        set { setAuthenticator(newValue) }
    }

    /// The host's authenticator.
    @usableFromInline
    func tokenAuthenticator() -> TokenAuthenticator? {
        feature(TokenAuthenticator.self)
    }

    /// Installs `authenticator` as the host's feature, its host this one.
    @usableFromInline
    func setAuthenticator(_ authenticator: TokenAuthenticator?) {
        authenticator?.host = self
        setFeature(authenticator, as: TokenAuthenticator.self)
    }
}
