#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why public-key pinning refused a connection (or a pin set).
///
/// A refused request fails once, never retried, with a `NetworkError` of kind
/// `transport` whose `underlyingError` is this error (read it with
/// `NetworkError/publicKeyPinningError`); its message starts with "public-key pinning",
/// so logs name it.
public struct PublicKeyPinningError: Error, Sendable, CustomStringConvertible {
    /// What went wrong. New reasons may come in later releases: compare with the
    /// constants, and keep a default branch.
    public struct Reason: Equatable, Sendable, CustomStringConvertible {
        /// The reason's name, e.g. `"noPinMatched"`.
        public let description: String

        private init(_ name: String) {
            description = name
        }

        /// No certificate of the verified chain has a pinned key: a proxy's or an
        /// attacker's certificate, or a key that changed without its pin.
        public static let noPinMatched = Reason("noPinMatched")
        /// The chain failed the system's own trust evaluation, checked before any pin.
        public static let systemTrustFailed = Reason("systemTrustFailed")
        /// No certificate of the chain could be read far enough to find its key.
        public static let malformedCertificate = Reason("malformedCertificate")
        /// This platform cannot check pins (Linux: swift-corelibs-foundation gives no
        /// server-trust challenge) and the host does not allow unpinned requests.
        public static let notEnforceable = Reason("notEnforceable")
        /// The request (or a redirect) is for a pinned host without TLS (`http:`).
        public static let notHTTPS = Reason("notHTTPS")
        /// A ``PinnedHost`` or ``PublicKeyPinning`` was given something it cannot use.
        public static let invalidConfiguration = Reason("invalidConfiguration")
    }

    /// What went wrong.
    public let reason: Reason
    /// The host name the connection (or the pin set) was for.
    public let host: String
    /// The pins of the chain's certificates, leaf first (empty when no chain was seen):
    /// compare them with the configured pins when diagnosing a mismatch.
    public let servedPins: [String]
    /// What happened, in a sentence.
    public let message: String

    init(_ reason: Reason, host: String, message: String, servedPins: [String] = []) {
        self.reason = reason
        self.host = host
        self.message = message
        self.servedPins = servedPins
    }

    /// "public-key pinning refused <host>: <message>" ("public-key pinning: <message>" when
    /// there is no host, as for ``PublicKeyPinning/pin(ofCertificate:)``), with the first
    /// three served pins when there were any ("… and 997 more": ``servedPins`` has them all).
    public var description: String {
        (host.isEmpty ? "public-key pinning: " : "public-key pinning refused " + host + ": ") + message
            + (servedPins.isEmpty ? "" : " (the chain's pins, leaf first: " + Self.list(servedPins, separator: ", ") + ")")
    }

    /// The first three of `items`, then " and N more" for the others: a message stays a
    /// line long however long the chain a server sent.
    static func list(_ items: [String], separator: String) -> String {
        let shown = items.prefix(3).joined(separator: separator)
        return items.count > 3 ? shown + " and " + String(items.count - 3) + " more" : shown
    }

    /// The request's failure: kind `transport`, this error underneath.
    func networkError(url: URL?) -> NetworkError {
        NetworkError(kind: .transport, message: description, url: url, underlyingError: self)
    }
}

/// Another attempt could only be refused again: a pinning failure is never retried.
extension PublicKeyPinningError: NonRetryableError {}

extension NetworkError {
    /// The public-key pinning refusal behind this error, if it is one.
    @_alwaysEmitIntoClient  // public API only, and the module never asks
    public var publicKeyPinningError: PublicKeyPinningError? {
        underlyingError as? PublicKeyPinningError
    }
}
