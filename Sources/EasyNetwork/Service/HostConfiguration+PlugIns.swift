import Foundation

extension HostConfiguration.SettingsSnapshot {
    /// The host's optional features that take part in `request`, in pipeline order:
    /// the cache, coalescing, the token. The one place that names them: the
    /// exchange sees only ``RequestPlugIn``s.
    func plugIns(for request: any BaseAPIRequest, service: EasyNetworkService) -> [any RequestPlugIn] {
        var plugIns: [any RequestPlugIn] = []
        if let cache = CachePlugIn(cache: settings.responseCache, policy: request.cachePolicy ?? settings.cachePolicy, settings: self) {
            plugIns.append(cache)
        }
        if request.coalescesIdenticalRequests ?? settings.coalescesRequests {
            plugIns.append(service.configuration.transport.coalescer)
        }
        if request.requiresAuthentication, let authenticator = settings.authenticator {
            plugIns.append(TokenPlugIn(TokenWait(authenticator: authenticator, service: service)))
        }
        return plugIns
    }
}
