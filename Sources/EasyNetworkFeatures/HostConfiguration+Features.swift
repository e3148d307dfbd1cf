#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

// Installing and finding a host's optional features (the cache, coalescing, the token,
// pinning, the retry engine), compiled once for every product that has one: in the core
// the seed program would pay for it, and emitted into each product it was compiled five
// times (about 1 KB each) in a program that imports them all.
extension HostConfiguration {
    /// The installed feature of `type`, or `nil`.
    @usableFromInline
    package func feature<Feature: HostFeature>(_ type: Feature.Type) -> Feature? {
        installedFeature(ObjectIdentifier(type)) as? Feature
    }

    /// Installs `feature` in place of the one of `type` (or removes it, `nil`), kept in
    /// the features' `order`; requests that start afterwards see it.
    @usableFromInline
    package func setFeature<Feature: HostFeature>(_ feature: Feature?, as type: Feature.Type) {
        installFeature(feature, id: ObjectIdentifier(type), order: type.order)
    }

    /// The installed feature whose type has `id`, or `nil`.
    private func installedFeature(_ id: ObjectIdentifier) -> (any HostFeature)? {
        for feature in snapshot().features where ObjectIdentifier(Swift.type(of: feature)) == id {
            return feature
        }
        return nil
    }

    /// Replaces the feature whose type has `id` with `feature` (or removes it), kept in `order`.
    private func installFeature(_ feature: (any HostFeature)?, id: ObjectIdentifier, order: Int) {
        let settings = beginChange()
        // One pass with one `append`: `removeAll(where:)` and `insert(_:at:)` would each
        // compile a `replaceSubrange` of this element type.
        let features = settings.features
        var kept: [any HostFeature] = []
        var pending = feature
        var index = 0
        while true {
            var next: any HostFeature
            if index < features.count {
                next = features[index]
                if let feature = pending, Swift.type(of: next).order > order {
                    next = feature  // goes before the installed one, which the next turn takes
                    pending = nil
                } else {
                    index += 1
                    if ObjectIdentifier(Swift.type(of: next)) == id { continue }
                }
            } else if let feature = pending {
                next = feature
                pending = nil
            } else {
                break
            }
            kept.append(next)
        }
        settings.change { $0.features = kept }
        endChange(settings)
    }
}
