import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Judges the servers of a host beyond the system's trust (public-key pinning, in
/// `EasyNetworkPinning`). The host's ``SessionDelegate`` asks it about server-trust
/// challenges (Apple platforms; swift-corelibs-foundation sends none) and about the target
/// of every redirect; nothing else. Installed with ``HostConfiguration/setTrustEvaluator(_:)``, one of the host's settings.
@usableFromInline  // named by the host setting emitted into the pinning product
package protocol ServerTrustEvaluator: AnyObject, Sendable {
    /// The answer to a server-trust challenge, and the error the task fails with when the
    /// server is refused (in place of the cancellation the disposition causes).
    func evaluate(_ challenge: URLAuthenticationChallenge) -> (disposition: URLSession.AuthChallengeDisposition, credential: URLCredential?, refused: NetworkError?)
    /// The error a request to `url` fails with before it is sent (a redirect's target), or `nil`.
    func refusal(for url: URL?) -> NetworkError?
}

/// An error that another attempt could only repeat (a server refused by its pins):
/// the request exchange asks no interceptor and no policy about a failure whose
/// ``NetworkError/underlyingError`` is one.
package protocol NonRetryableError: Error {}
