#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The pinned hosts of a ``PublicKeyPinning`` and the decisions made of them: which entry
/// covers a host name, whether a certificate chain passes, whether a request may be sent.
/// Immutable. It is also the per-request plug-in of the pinning: its `adapt` refuses a
/// request that pinning cannot protect (plain HTTP; Linux) before it is sent.
@usableFromInline
final class PinRules: RequestPlugIn, RequestInterceptor, Sendable {
    let hosts: [PinnedHost]

    init(_ hosts: [PinnedHost]) {
        self.hosts = hosts
    }

    /// Whether this platform checks pins: Apple platforms do, in the session's server-trust
    /// challenge; swift-corelibs-foundation (Linux) gives no such challenge.
    static var isEnforceable: Bool {
        #if canImport(Security) && !canImport(FoundationNetworking)
        return true
        #else
        return false
        #endif
    }

    /// The entry that decides `name` at `date`: the host's own, else the subdomain rule of
    /// its nearest parent; `nil` when none covers it or that one has expired.
    @usableFromInline
    @_optimize(size)  // a few string comparisons per request, or configuration
    func pinnedHost(for name: String, at date: Date) -> PinnedHost? {
        let name = PinnedHost.normalized(name)
        var best: PinnedHost?
        var length = -1
        for entry in hosts where entry.host.utf8.count > length && entry.covers(name) {
            best = entry
            length = entry.host.utf8.count
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
    func refusal(for url: URL?, at date: Date = Date()) -> NetworkError? {
        guard let url, let name = url.host, let entry = pinnedHost(for: name, at: date) else { return nil }
        let reason: PublicKeyPinningError.Reason
        let message: String
        if url.scheme?.lowercased() != "https" {
            reason = .notHTTPS
            message = "a pinned host is only reached over HTTPS, and this request is for " + (url.scheme ?? "no scheme")
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

    @_alwaysEmitIntoClient  // only its witness uses it: inlined there, no copy of its own
    var interceptor: (any RequestInterceptor)? { self }

    /// Refuses a request pinning cannot protect before it is sent (every attempt, downloads too).
    @_alwaysEmitIntoClient  // only its witness uses it: inlined there, no copy of its own
    func adapt(_ urlRequest: URLRequest, context: RequestContext, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        if let refused = refusal(for: urlRequest.url) {
            completion(.failure(refused))
        } else {
            completion(.success(urlRequest))
        }
    }
}
