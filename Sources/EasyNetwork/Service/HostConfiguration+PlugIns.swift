import Foundation

extension HostConfiguration.SettingsSnapshot {
    /// The host's installed features that take part in `request`, in their order
    /// (the cache, coalescing, the token). The exchange sees only their
    /// ``RequestPlugIn``s and never names a feature.
    func plugIns(for request: any BaseAPIRequest, service: EasyNetworkService) -> [any RequestPlugIn] {
        var plugIns: [any RequestPlugIn] = []
        for feature in features {  // a loop: `compactMap` compiles a specialization of its own
            if let plugIn = feature.plugIn(for: request, settings: self, service: service) { plugIns.append(plugIn) }
        }
        return plugIns
    }
}
