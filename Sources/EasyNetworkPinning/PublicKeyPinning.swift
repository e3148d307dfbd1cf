#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

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
    /// The rules, also the per-request plug-in.
    @usableFromInline let rules: PinRules

    /// Pins `hosts`; each host name once.
    /// - Throws: ``PublicKeyPinningError`` with reason
    ///   ``PublicKeyPinningError/Reason-swift.struct/invalidConfiguration`` when a host is
    ///   pinned twice.
    public init(_ hosts: [PinnedHost]) throws {
        for index in hosts.indices where hosts[..<index].contains(where: { $0.host == hosts[index].host }) {
            throw PublicKeyPinningError(.invalidConfiguration, host: hosts[index].host, message: "the host is pinned twice")
        }
        rules = PinRules(hosts)
    }

    /// The pinned hosts.
    public var hosts: [PinnedHost] { rules.hosts }

    /// Whether this platform checks pins (`true` on Apple platforms, `false` on Linux, where
    /// requests to pinned hosts are refused unless they allow unpinned requests).
    public static var isEnforceable: Bool { PinRules.isEnforceable }

    /// The entry that decides `host` at `date`: its own, else the nearest parent's with
    /// ``PinnedHost/includesSubdomains``; `nil` when none covers it or that one has expired.
    @_alwaysEmitIntoClient  // for tools and tests: the module never asks
    public func pinnedHost(for host: String, at date: Date = Date()) -> PinnedHost? {
        rules.pinnedHost(for: host, at: date)
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
        guard let entry = rules.pinnedHost(for: host, at: date) else { return nil }
        try rules.check(certificateChain, against: entry)
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
