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
}
