#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Security) && !canImport(FoundationNetworking)
import Security
#endif

/// A host's ``PublicKeyPinning`` as the judge of its servers: the host's session delegate
/// hands it every server-trust challenge (Apple platforms) and every redirect's target.
extension PublicKeyPinning: ServerTrustEvaluator {
    @usableFromInline package func refusal(for url: URL?) -> NetworkError? {
        rules.refusal(for: url)
    }

    #if canImport(Security) && !canImport(FoundationNetworking)
    /// The system's trust evaluation for the challenge's host first; then, for a pinned
    /// host, the keys of the chain the system verified (leaf to root) against its pins.
    /// Compiled on Apple platforms only (not on the Linux machine this module is tested on):
    /// written against Security's documented API.
    @usableFromInline package func evaluate(_ challenge: URLAuthenticationChallenge) -> (disposition: URLSession.AuthChallengeDisposition, credential: URLCredential?, refused: NetworkError?) {
        let space = challenge.protectionSpace
        guard let trust = space.serverTrust, let entry = rules.pinnedHost(for: space.host, at: Date()) else {
            return (.performDefaultHandling, nil, nil)
        }
        SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, space.host as CFString))
        var failure: CFError?
        guard SecTrustEvaluateWithError(trust, &failure) else {
            let reason = failure.map { ($0 as Error).localizedDescription } ?? "the chain is not trusted"
            let refused = PublicKeyPinningError(.systemTrustFailed, host: entry.host, message: "the system's trust evaluation failed before any pin was checked: " + reason)
            return (.cancelAuthenticationChallenge, nil, refused.networkError(url: nil))
        }
        do {
            try rules.check(Self.verifiedChain(of: trust), against: entry)
            return (.useCredential, URLCredential(trust: trust), nil)
        } catch {
            return (.cancelAuthenticationChallenge, nil, error.networkError(url: nil))
        }
    }

    /// The DER bytes of the chain the system built and verified, leaf first: never the
    /// extra certificates a server may send beside it.
    private static func verifiedChain(of trust: SecTrust) -> [Data] {
        let certificates: [SecCertificate]
        if #available(iOS 15, macOS 12, tvOS 15, watchOS 8, *) {
            certificates = (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
        } else {
            certificates = (0..<SecTrustGetCertificateCount(trust)).compactMap { SecTrustGetCertificateAtIndex(trust, $0) }
        }
        return certificates.map { SecCertificateCopyData($0) as Data }
    }
    #else
    /// No platform without the Security framework sends server-trust challenges; should one
    /// come, a pinned host fails closed.
    @usableFromInline package func evaluate(_ challenge: URLAuthenticationChallenge) -> (disposition: URLSession.AuthChallengeDisposition, credential: URLCredential?, refused: NetworkError?) {
        guard let entry = rules.pinnedHost(for: challenge.protectionSpace.host, at: Date()) else {
            return (.performDefaultHandling, nil, nil)
        }
        let refused = PublicKeyPinningError(.notEnforceable, host: entry.host, message: "pins cannot be checked on this platform")
        return (.cancelAuthenticationChallenge, nil, refused.networkError(url: nil))
    }
    #endif
}
