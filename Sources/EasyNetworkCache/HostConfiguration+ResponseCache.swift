#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
import EasyNetworkFeatures
#endif
import Foundation

extension HostConfiguration {
    /// The disk cache this host's requests may use, or `nil` (the default) for none.
    ///
    /// Setting a cache installs it for the requests that start afterwards; each uses it
    /// as its ``BaseAPIRequest/cachePolicy`` (or else the host's
    /// ``HostConfiguration/cachePolicy``) says:
    ///
    /// ```swift
    /// import EasyNetworkCache
    ///
    /// host.responseCache = ResponseCache(name: "my-sdk", maxBytes: 20 << 20)
    /// host.cachePolicy = .revalidate
    /// ```
    @_alwaysEmitIntoClient  // a host setting's accessors (see ARCHITECTURE.md): no modify coroutine in the module
    public var responseCache: ResponseCache? {
        get { cache() }
        set { setCache(newValue) }
    }

    /// The host's cache.
    @usableFromInline
    func cache() -> ResponseCache? {
        feature(ResponseCache.self)
    }

    /// Installs `cache` as the host's feature.
    @usableFromInline
    func setCache(_ cache: ResponseCache?) {
        setFeature(cache, as: ResponseCache.self)
    }
}
