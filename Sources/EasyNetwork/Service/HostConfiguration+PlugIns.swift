import Foundation

extension HostConfiguration.SettingsSnapshot {
    /// The host's installed features that take part in `request`, in their order
    /// (the cache, coalescing, the token). The exchange sees only their
    /// ``RequestPlugIn``s and never names a feature.
    func plugIns(for request: any BaseAPIRequest, service: EasyNetworkService) -> [any RequestPlugIn] {
        guard !features.isEmpty else { return [] }
        return features.compactMap { $0.plugIn(for: request, settings: self, service: service) }
    }
}
