#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// What `Cache-Control` and `Vary` say about storing a response, read
/// case-insensitively from a header value (RFC 9111 §5.2, RFC 9110 §12.5.5).
struct CacheDirectives {
    /// `no-store`: never written to disk.
    var noStore = false
    /// `private`: for one user only (stored only under a credential, see ``CacheKey``).
    var isPrivate = false

    /// The directives of a `Cache-Control` value; `nil` means none.
    init(cacheControl: String?) {
        for name in Self.list(cacheControl, namesOnly: true) {
            switch name {
            case "no-store": noStore = true
            case "private": isPrivate = true
            default: break
            }
        }
    }

    /// The request header names a `Vary` value lists, lowercased and without repeats,
    /// in the order given; `nil` for `Vary: *` (the response depends on more than headers).
    static func varyNames(_ vary: String?) -> [String]? {
        var names: [String] = []
        for name in list(vary, namesOnly: false) {
            if name == "*" { return nil }
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The comma-separated items of a header value, trimmed and lowercased, empty ones
    /// left out; with `namesOnly`, each item up to its first `=` (a directive's name).
    /// Kept out of line: two callers share one copy.
    @inline(never)
    private static func list(_ value: String?, namesOnly: Bool) -> [String] {
        guard let value else { return [] }
        var items: [String] = []
        var item = ""
        var inArgument = false
        for character in value + "," {
            if character == "," {
                let trimmed = item.trimmingCharacters(in: .whitespaces).lowercased()
                if !trimmed.isEmpty { items.append(trimmed) }
                item = ""
                inArgument = false
            } else if namesOnly && character == "=" {
                inArgument = true
            } else if !inArgument {
                item.append(character)
            }
        }
        return items
    }
}
