#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The decisions a ``PublicKeyPinning`` makes of its hosts: which entry covers a host name,
/// whether a certificate chain passes, whether a request may be sent. It is also the
/// per-request plug-in of the pinning (its interceptor is a ``PinRules``).
extension PublicKeyPinning: RequestPlugIn {
    /// The entry that decides `name` at `date`: the host's own, else the subdomain rule of
    /// its nearest parent; `nil` when none covers it or that one has expired.
    @usableFromInline
    @_optimize(size)  // a few string comparisons per request, or configuration
    func entry(for name: String, at date: Date) -> PinnedHost? {
        let name = PinnedHost.normalized(name)
        var best: PinnedHost?
        var length = -1
        for entry in entries {
            let count = entry.host.utf8.count  // read once
            if count > length, entry.covers(name) {
                best = entry
                length = count
            }
        }
        guard let best, !best.hasExpired(at: date) else { return nil }
        return best
    }

    /// Passes when a certificate of `chain` (DER, leaf first, as the system verified it)
    /// has a key `entry` pins; throws why not.
    @usableFromInline
    @_optimize(size)  // a cold path: configuration, a handshake's check, a refusal's words
    func check(_ chain: [Data], against entry: PinnedHost) throws(PublicKeyPinningError) {
        var served: [String] = []
        var unreadable: [String] = []
        for index in chain.indices {
            do {
                let pin = try SubjectPublicKeyInfo.pin(ofCertificate: chain[index])
                if Self.contains(pin, in: entry.pins) { return }
                Self.append(pin, to: &served)
            } catch {
                Self.append("certificate " + String(index) + ": " + error.message, to: &unreadable)
            }
        }
        let notes = unreadable.isEmpty ? "" : " (unreadable: " + PublicKeyPinningError.list(unreadable, separator: "; ") + ")"
        // No key read at all: malformed; else none matched (the served pins listed).
        let message = chain.isEmpty ? "the server presented no certificate"
            : served.isEmpty ? "no certificate of the chain could be read"
            : "none of the " + String(chain.count) + " certificates of the verified chain has a pinned key"
        throw PublicKeyPinningError(served.isEmpty ? .malformedCertificate : .noPinMatched, host: entry.host, message: message + notes, servedPins: served)
    }

    /// Why a request to `url` may not be sent, or `nil`: a pinned host must be reached
    /// over HTTPS, and where pins cannot be checked only if it allows unpinned requests.
    @usableFromInline
    func refusal(for url: URL?, at date: Date) -> NetworkError? {
        guard let url, let name = url.host, let entry = entry(for: name, at: date) else { return nil }
        let reason: PublicKeyPinningError.Reason
        let message: String
        let scheme = url.scheme
        if scheme?.lowercased() != "https" {
            reason = .notHTTPS
            message = "a pinned host is only reached over HTTPS, and this request is for " + (scheme ?? "no scheme")
        } else if !Self.isEnforceable, !entry.allowsUnpinnedWhereUnsupported {
            reason = .notEnforceable
            message = "pins cannot be checked on this platform (swift-corelibs-foundation gives no server-trust challenge), "
                + "so requests to a pinned host are refused; PinnedHost(allowsUnpinnedWhereUnsupported: true) sends them "
                + "checked by the system's trust alone"
        } else {
            return nil
        }
        return PublicKeyPinningError(reason, host: entry.host, message: message, servedPins: []).networkError(url: url)
    }

    /// `array.append(element)`, compiled once for every element type: the standard
    /// library's own code runs (growth included), not a copy specialized here.
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    static func append<Element>(_ element: Element, to array: inout [Element]) {
        array.append(element)
    }

    /// `array.contains(element)`, compiled once for every element type (see ``append(_:to:)``).
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    static func contains<Element: Equatable>(_ element: Element, in array: [Element]) -> Bool {
        array.contains(element)
    }

    /// The interceptor that refuses a request pinning cannot protect (see ``PinRules``).
    @_alwaysEmitIntoClient  // only its witness uses it: inlined there, no copy of its own
    package var interceptor: (any RequestInterceptor)? { PinRules(pinning: self) }
}
