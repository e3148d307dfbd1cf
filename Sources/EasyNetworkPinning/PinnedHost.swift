#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// The public keys one host name may present: SHA-256 hashes of SubjectPublicKeyInfos
/// (base64, as HPKP and TrustKit write them; see <doc:PinningPublicKeys> for the `openssl`
/// command that makes them). A connection passes when any certificate of the chain the
/// system verified (leaf, intermediate or root) has a key among ``pins``.
///
/// ```swift
/// let api = try PinnedHost(
///     "api.example.com",
///     pins: ["AsCouOfb2JBaDYcWrRwmlqNUmbnkWH5fPCFsyzpAzaU=",   // the key in use
///            "o/88pT3o8CGe7QHsNcyBgbLzgIjvPQqEKB+0Gv4ZsgA="],  // the backup key, kept offline
///     expires: Date(timeIntervalSince1970: 1_893_456_000)       // 2030-01-01
/// )
/// ```
public struct PinnedHost: Sendable {
    /// The host name, lowercased, without a trailing dot (an IPv6 address without brackets).
    public var host: String { fields.host }
    /// The base64 SHA-256 hashes of the accepted SubjectPublicKeyInfos: two or more,
    /// each once, in the order given.
    public var pins: [String] { fields.pins }
    /// Whether every subdomain of ``host`` (`a.host`, `b.a.host`, …) is pinned too; a
    /// subdomain with a pinned host of its own follows that one.
    public var includesSubdomains: Bool { fields.includesSubdomains }
    /// When the pins stop applying, or `nil` for never. After it the host is no longer
    /// pinned (checked by the system's trust alone), so an app that is never updated keeps
    /// its network when the keys change: set it to a date you are sure to ship new pins by.
    public var expires: Date? { fields.expires }
    /// Whether, where pins cannot be checked (Linux: swift-corelibs-foundation gives no
    /// server-trust challenge), requests to this host go out checked by the system's trust
    /// alone. `false` (the default): they are refused with
    /// ``PublicKeyPinningError/Reason-swift.struct/notEnforceable``.
    public var allowsUnpinnedWhereUnsupported: Bool { fields.allowsUnpinnedWhereUnsupported }

    /// The fields, in one immutable object: an entry is one reference (the runtime's
    /// shared value witnesses, none of its own).
    private final class Fields: Sendable {
        let host: String
        let pins: [String]
        let includesSubdomains: Bool
        let expires: Date?
        let allowsUnpinnedWhereUnsupported: Bool

        init(host: String, pins: [String], includesSubdomains: Bool, expires: Date?, allowsUnpinnedWhereUnsupported: Bool) {
            self.host = host
            self.pins = pins
            self.includesSubdomains = includesSubdomains
            self.expires = expires
            self.allowsUnpinnedWhereUnsupported = allowsUnpinnedWhereUnsupported
        }
    }

    private let fields: Fields

    /// Pins `host`.
    ///
    /// - Parameters:
    ///   - host: a host name (`api.example.com`) or IP address; no scheme, port, path or `*`.
    ///   - pins: base64 SHA-256 hashes of SubjectPublicKeyInfos, at least two different
    ///     ones: the key in use and a backup key that is in no certificate yet, so that a
    ///     lost or compromised key can be replaced without locking out the apps in use.
    ///   - includesSubdomains: whether the subdomains of `host` are pinned too.
    ///   - expires: when the pins stop applying; `nil` for never.
    ///   - allowsUnpinnedWhereUnsupported: whether requests may go out unpinned where pins
    ///     cannot be checked (Linux).
    /// - Throws: ``PublicKeyPinningError`` with reason
    ///   ``PublicKeyPinningError/Reason-swift.struct/invalidConfiguration``, saying what is wrong.
    @_optimize(size)  // a cold path: configuration, a handshake's check, a refusal's words
    public init(
        _ host: String,
        pins: [String],
        includesSubdomains: Bool = false,
        expires: Date? = nil,
        allowsUnpinnedWhereUnsupported: Bool = false
    ) throws {
        let name = Self.normalized(host)
        // Letters, digits, `-` and `.` (never two in a row, nor first); colons only in an
        // IPv6 address (two or more), so `host:port` is refused.
        let characters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789-.:")
        // What is wrong, the first thing found; one error made for all of them.
        var problem: String?
        if name.isEmpty || name.rangeOfCharacter(from: characters.inverted) != nil || name.hasPrefix(".")
            || name.components(separatedBy: "..").count > 1 || name.components(separatedBy: ":").count == 2 {
            problem = "'" + host + "' is not a host name (no scheme, port, path or wildcard)"
        }
        var accepted: [String] = []
        for pin in pins where problem == nil {
            guard let digest = Data(base64Encoded: pin), digest.count == 32 else {
                problem = "'" + pin + "' is not the base64 of a SHA-256 hash (32 bytes)"
                break
            }
            let canonical = digest.base64EncodedString()
            if !PublicKeyPinning.contains(canonical, in: accepted) { PublicKeyPinning.append(canonical, to: &accepted) }
        }
        if problem == nil, accepted.count < 2 {
            problem = "a pinned host needs at least two different pins: the key in use and a backup key"
        }
        if let problem {
            throw PublicKeyPinningError(.invalidConfiguration, host: name, message: problem, servedPins: [])
        }
        fields = Fields(
            host: name, pins: accepted, includesSubdomains: includesSubdomains, expires: expires,
            allowsUnpinnedWhereUnsupported: allowsUnpinnedWhereUnsupported
        )
    }

    /// `name` as entries compare it: lowercased, without a trailing dot or IPv6 brackets.
    @_optimize(size)  // a few string comparisons per request, or configuration
    static func normalized(_ name: String) -> String {
        var text = name.lowercased()
        if text.utf8.count > 1, text.hasPrefix("["), text.hasSuffix("]") {
            drop(first: 1, last: 1, of: &text)
        }
        if text.hasSuffix(".") { drop(first: 0, last: 1, of: &text) }
        return text
    }

    /// Removes `first` elements from the start of `text` and `last` from its end, compiled
    /// once for every type: the standard library's own code runs, not a copy specialized here.
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    private static func drop<Text: RangeReplaceableCollection & BidirectionalCollection>(first: Int, last: Int, of text: inout Text) {
        text.removeLast(last)
        text.removeFirst(first)
    }

    /// Whether this entry pins `name` (lowercased, without a trailing dot), expired or not.
    func covers(_ name: String) -> Bool {
        name == host || (includesSubdomains && name.hasSuffix("." + host))
    }

    /// Whether the pins have stopped applying at `date`.
    func hasExpired(at date: Date) -> Bool {
        expires.map { date >= $0 } ?? false
    }
}
