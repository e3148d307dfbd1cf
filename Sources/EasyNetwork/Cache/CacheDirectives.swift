import Foundation

/// What `Cache-Control` and `Vary` say about storing a response, read
/// case-insensitively from a header value (RFC 9111 §5.2, RFC 9110 §12.5.5).
struct CacheDirectives: Equatable {
    /// `no-store`: never written to disk.
    var noStore = false
    /// `private`: for one user only (stored only under a credential, see ``CacheKey``).
    var isPrivate = false

    /// The directives of a `Cache-Control` value; `nil` means none.
    init(cacheControl: String?) {
        for directive in Self.list(cacheControl) {
            let name = directive.split(separator: "=", maxSplits: 1).first.map(String.init) ?? directive
            switch name.trimmingCharacters(in: .whitespaces) {
            case "no-store": noStore = true
            case "private": isPrivate = true
            default: break
            }
        }
    }

    /// The request header names a `Vary` value lists, lowercased, sorted and without
    /// repeats; `nil` for `Vary: *` (the response depends on more than headers).
    static func varyNames(_ vary: String?) -> [String]? {
        let names = list(vary)
        if names.contains("*") { return nil }
        return Array(Set(names)).sorted()
    }

    /// The comma-separated items of a header value, trimmed and lowercased.
    private static func list(_ value: String?) -> [String] {
        guard let value else { return [] }
        return value.split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
    }
}
