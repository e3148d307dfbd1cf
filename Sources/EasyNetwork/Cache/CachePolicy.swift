import Foundation

/// How a request uses its host's response cache (`ResponseCache`, installed with
/// `host.responseCache` from the `EasyNetworkCache` product; without one every policy
/// is the network's).
///
/// Whatever the policy, only a response that passed validation and mapping is stored,
/// under the credentials it was sent with.
public enum CachePolicy: Sendable, Equatable {
    /// Always the network; nothing is read or stored (the default).
    case networkOnly
    /// A stored response younger than `maxAge` seconds is the result, without the
    /// network (when it still maps); otherwise the network, and its response is stored.
    case cacheElseNetwork(maxAge: TimeInterval)
    /// A stored response is delivered at once through the operation's `onCachedValue`,
    /// then the network's result through the usual callbacks (two deliveries, the
    /// cached one first); the network's response is stored.
    case cacheThenNetwork
    /// The network, asked with `If-None-Match` / `If-Modified-Since` from the stored
    /// response; a `304 Not Modified` is answered with the stored body.
    case revalidate

    /// Whether two policies are the same case (with the same `maxAge`). Written out and
    /// emitted into the caller: the library never compares policies, so the core keeps
    /// only the conformance's witness, not a derived function as well.
    @_alwaysEmitIntoClient
    public static func == (lhs: CachePolicy, rhs: CachePolicy) -> Bool {
        switch (lhs, rhs) {
        case (.networkOnly, .networkOnly), (.cacheThenNetwork, .cacheThenNetwork), (.revalidate, .revalidate):
            return true
        case let (.cacheElseNetwork(left), .cacheElseNetwork(right)):
            return left == right
        default:
            return false
        }
    }
}
