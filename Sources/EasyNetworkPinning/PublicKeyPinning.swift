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

/// Public-key pinning for the hosts a `HostConfiguration` talks to: a connection to a
/// pinned host passes only when the system trusts its certificate chain **and** a
/// certificate of that chain has a pinned key. Install it on a host:
///
/// ```swift
/// host.publicKeyPinning = try PublicKeyPinning([
///     PinnedHost("api.example.com", pins: [currentKeyPin, backupKeyPin]),
///     PinnedHost("example.com", pins: [cdnKeyPin, cdnBackupPin], includesSubdomains: true),
/// ])
/// ```
///
/// - On Apple platforms the session's server-trust challenge runs the system's trust
///   evaluation first (a chain that fails it never passes because of a pin), then
///   matches the keys of the chain it verified, leaf to root, against the pins.
/// - On Linux swift-corelibs-foundation gives no server-trust challenge, so pins cannot be
///   checked: requests to a pinned host are refused with
///   ``PublicKeyPinningError/Reason-swift.struct/notEnforceable`` unless its entry says
///   ``PinnedHost/allowsUnpinnedWhereUnsupported``.
/// - Everywhere, a pinned host is reached over HTTPS only (a redirect too), and a refused
///   connection fails the request once, never retried: a `NetworkError` of kind
///   `transport` with a ``PublicKeyPinningError`` underneath
///   (`NetworkError/publicKeyPinningError`).
///
/// Pins narrow the system's trust, never widen it. See <doc:PinningPublicKeys> for how to
/// get the hashes and roll keys.
public final class PublicKeyPinning: Sendable {
    /// The pinned hosts (see ``hosts``; an internal constant has no accessor of its own).
    let entries: [PinnedHost]

    /// Pins `hosts`; each host name once.
    /// - Throws: ``PublicKeyPinningError`` with reason
    ///   ``PublicKeyPinningError/Reason-swift.struct/invalidConfiguration`` when a host is
    ///   pinned twice.
    @_optimize(size)  // a few string comparisons per request, or configuration
    public convenience init(_ hosts: [PinnedHost]) throws {
        // A convenience initializer: the hosts are checked first, and a refusal leaves no
        // half-made object to free.
        for index in hosts.indices where hosts[..<index].contains(where: { $0.host == hosts[index].host }) {
            throw PublicKeyPinningError(.invalidConfiguration, host: hosts[index].host, message: "the host is pinned twice", servedPins: [])
        }
        self.init(entries: hosts)
    }

    /// Pins `entries`, checked.
    private init(entries: [PinnedHost]) {
        self.entries = entries
    }

    /// The pinned hosts.
    public var hosts: [PinnedHost] { entries }

    /// Whether this platform checks pins (`true` on Apple platforms, `false` on Linux, where
    /// requests to pinned hosts are refused unless they allow unpinned requests).
    @_alwaysEmitIntoClient  // a constant: built where it is used, no getter in the module
    public static var isEnforceable: Bool {
        #if canImport(Security) && !canImport(FoundationNetworking)
        return true
        #else
        return false
        #endif
    }

    /// The entry that decides `host` at `date`: its own, else the nearest parent's with
    /// ``PinnedHost/includesSubdomains``; `nil` when none covers it or that one has expired.
    @_alwaysEmitIntoClient  // for tools and tests: the module never asks
    public func pinnedHost(for host: String, at date: Date = Date()) -> PinnedHost? {
        entry(for: host, at: date)
    }

    /// The decision on a certificate chain, as a connection to `host` gets it: `nil` when
    /// `host` is not pinned at `date`, the entry whose pin matched otherwise. Use it to
    /// test your pins against your servers' certificates (DER, leaf first) on any platform.
    /// - Throws: ``PublicKeyPinningError`` with reason
    ///   ``PublicKeyPinningError/Reason-swift.struct/noPinMatched``, or
    ///   ``PublicKeyPinningError/Reason-swift.struct/malformedCertificate`` when no
    ///   certificate could be read.
    @_alwaysEmitIntoClient  // for tools and tests: the module never asks
    public func validate(certificateChain: [Data], host: String, at date: Date = Date()) throws -> PinnedHost? {
        guard let entry = entry(for: host, at: date) else { return nil }
        try check(certificateChain, against: entry)
        return entry
    }

    /// The pin of a DER certificate: the base64 SHA-256 of its SubjectPublicKeyInfo, what
    /// `openssl` prints for it (see <doc:PinningPublicKeys>).
    /// - Throws: ``PublicKeyPinningError`` with reason
    ///   ``PublicKeyPinningError/Reason-swift.struct/malformedCertificate``.
    public static func pin(ofCertificate der: Data) throws -> String {
        try SubjectPublicKeyInfo.pin(ofCertificate: der)
    }
}

/// A host's ``PublicKeyPinning`` as a `HostFeature`: every request gets it as its plug-in,
/// whose interceptor (``PinRules``) refuses what pinning cannot protect before anything is
/// sent; it runs before the token's (order 20), so a refused request never waits for a refresh.
extension PublicKeyPinning: HostFeature {
    @_alwaysEmitIntoClient package static var order: Int { 5 }  // inlined into its witness, no copy of its own

    @usableFromInline package func plugIn(for request: any BaseAPIRequest, settings: HostSettings, service: EasyNetworkService) -> (any RequestPlugIn)? {
        entries.isEmpty ? nil : self
    }
}

/// A host's ``PublicKeyPinning`` as the judge of its servers: the host's session delegate
/// hands it every server-trust challenge (Apple platforms) and every redirect's target.
extension PublicKeyPinning: ServerTrustEvaluator {
    @_alwaysEmitIntoClient package func refusal(for url: URL?) -> NetworkError? {  // inlined into its witness
        refusal(for: url, at: Date())
    }

    #if canImport(Security) && !canImport(FoundationNetworking)
    /// The system's trust evaluation for the challenge's host first; then, for a pinned
    /// host, the keys of the chain the system verified (leaf to root) against its pins.
    /// Compiled on Apple platforms only (not on the Linux machine this module is tested on):
    /// written against Security's documented API.
    @usableFromInline package func evaluate(_ challenge: URLAuthenticationChallenge) -> (disposition: URLSession.AuthChallengeDisposition, credential: URLCredential?, refused: NetworkError?) {
        let space = challenge.protectionSpace
        guard let trust = space.serverTrust, let entry = entry(for: space.host, at: Date()) else {
            return (.performDefaultHandling, nil, nil)
        }
        SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, space.host as CFString))
        var failure: CFError?
        guard SecTrustEvaluateWithError(trust, &failure) else {
            let reason = failure.map { ($0 as Error).localizedDescription } ?? "the chain is not trusted"
            let refused = PublicKeyPinningError(.systemTrustFailed, host: entry.host, message: "the system's trust evaluation failed before any pin was checked: " + reason, servedPins: [])
            return (.cancelAuthenticationChallenge, nil, refused.networkError(url: nil))
        }
        do {
            try check(Self.verifiedChain(of: trust), against: entry)
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
        guard let entry = entry(for: challenge.protectionSpace.host, at: Date()) else {
            return (.performDefaultHandling, nil, nil)
        }
        let refused = PublicKeyPinningError(.notEnforceable, host: entry.host, message: "pins cannot be checked on this platform", servedPins: [])
        return (.cancelAuthenticationChallenge, nil, refused.networkError(url: nil))
    }
    #endif
}
