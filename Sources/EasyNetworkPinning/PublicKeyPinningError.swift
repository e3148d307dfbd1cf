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
        /// Which reason: an index into the names (a plain byte, so a reason has no value
        /// witnesses of its own and compares as a number).
        let code: UInt8

        @usableFromInline
        init(_ code: UInt8) {
            self.code = code
        }

        /// The reason's name, e.g. `"noPinMatched"`.
        @_optimize(size)  // a cold path: a refusal's words
        public var description: String {
            switch code {
            case 0: "noPinMatched"
            case 1: "systemTrustFailed"
            case 2: "malformedCertificate"
            case 3: "notEnforceable"
            case 4: "notHTTPS"
            default: "invalidConfiguration"
            }
        }

        /// No certificate of the verified chain has a pinned key: a proxy's or an
        /// attacker's certificate, or a key that changed without its pin.
        @_alwaysEmitIntoClient  // a constant: built where it is used, no getter and storage in the module
        public static var noPinMatched: Reason { Reason(0) }
        /// The chain failed the system's own trust evaluation, checked before any pin.
        @_alwaysEmitIntoClient  // a constant: built where it is used, no getter and storage in the module
        public static var systemTrustFailed: Reason { Reason(1) }
        /// No certificate of the chain could be read far enough to find its key.
        @_alwaysEmitIntoClient  // a constant: built where it is used, no getter and storage in the module
        public static var malformedCertificate: Reason { Reason(2) }
        /// This platform cannot check pins (Linux: swift-corelibs-foundation gives no
        /// server-trust challenge) and the host does not allow unpinned requests.
        @_alwaysEmitIntoClient  // a constant: built where it is used, no getter and storage in the module
        public static var notEnforceable: Reason { Reason(3) }
        /// The request (or a redirect) is for a pinned host without TLS (`http:`).
        @_alwaysEmitIntoClient  // a constant: built where it is used, no getter and storage in the module
        public static var notHTTPS: Reason { Reason(4) }
        /// A ``PinnedHost`` or ``PublicKeyPinning`` was given something it cannot use.
        @_alwaysEmitIntoClient  // a constant: built where it is used, no getter and storage in the module
        public static var invalidConfiguration: Reason { Reason(5) }
    }

    /// What went wrong.
    public var reason: Reason { fields.reason }
    /// The host name the connection (or the pin set) was for.
    public var host: String { fields.host }
    /// The pins of the chain's certificates, leaf first (empty when no chain was seen):
    /// compare them with the configured pins when diagnosing a mismatch.
    public var servedPins: [String] { fields.servedPins }
    /// What happened, in a sentence.
    public var message: String { fields.message }

    /// The fields, in one immutable object: an error is one reference, cheap to throw and
    /// copy (the runtime's shared value witnesses, none of its own).
    private final class Fields: Sendable {
        let reason: Reason
        let host: String
        let servedPins: [String]
        let message: String

        init(_ reason: Reason, host: String, servedPins: [String], message: String) {
            self.reason = reason
            self.host = host
            self.servedPins = servedPins
            self.message = message
        }
    }

    private let fields: Fields

    @inline(never)  // one copy for every refusal of the module
    init(_ reason: Reason, host: String, message: String, servedPins: [String]) {
        fields = Fields(reason, host: host, servedPins: servedPins, message: message)
    }

    /// "public-key pinning refused <host>: <message>" ("public-key pinning: <message>" when
    /// there is no host, as for ``PublicKeyPinning/pin(ofCertificate:)``), with the first
    /// three served pins when there were any ("… and 997 more": ``servedPins`` has them all).
    @_optimize(size)  // a cold path: configuration, a handshake's check, a refusal's words
    public var description: String {
        let pins = servedPins.isEmpty ? "" : " (the chain's pins, leaf first: \(Self.list(servedPins, separator: ", ")))"
        return (host.isEmpty ? "public-key pinning: " : "public-key pinning refused \(host): ") + message + pins
    }

    /// The first three of `items`, then " and N more" for the others: a message stays a
    /// line long however long the chain a server sent.
    @_optimize(size)  // a cold path: configuration, a handshake's check, a refusal's words
    static func list(_ items: [String], separator: String) -> String {
        var shown = ""
        for index in 0..<min(3, items.count) {
            shown += (index == 0 ? "" : separator) + items[index]
        }
        return items.count > 3 ? "\(shown) and \(items.count - 3) more" : shown
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
