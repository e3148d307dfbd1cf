import Foundation

/// Maps the charset names servers put in `Content-Type` to `String.Encoding`, without
/// CoreFoundation (which Linux does not expose).
///
/// Static members of ``NetworkResponse`` (its ``NetworkResponse/text()`` reads them), called
/// under this name: a namespace `enum` of its own is type metadata and an accessor in every
/// program.
@usableFromInline
typealias TextCharset = NetworkResponse

extension NetworkResponse {
    /// The names, in the order searched, with their encodings' raw values (the
    /// `NSStringEncoding` numbers, the same on every platform; `TextCharsetTests` holds them
    /// against the named constants). A table of constants, not code: a switch over strings
    /// compiles a comparison per name, and each named constant is an import of its own.
    /// Emitted into the caller, as ``NetworkResponse/text()`` is: the core holds no copy.
    @_alwaysEmitIntoClient
    static var table: [(name: String, rawValue: UInt)] { [
        ("utf-8", 4), ("utf8", 4),
        ("utf-16", 10),
        ("utf-16le", 0x9400_0100),
        ("utf-16be", 0x9000_0100),
        ("utf-32", 0x8C00_0100),
        ("us-ascii", 1), ("ascii", 1),
        ("iso-8859-1", 5), ("latin1", 5), ("iso_8859-1", 5), ("l1", 5),
        ("iso-8859-2", 9), ("latin2", 9),
        ("windows-1252", 12), ("cp1252", 12),
        ("windows-1251", 11), ("cp1251", 11),
        ("shift_jis", 8), ("shift-jis", 8), ("sjis", 8),
        ("euc-jp", 3),
        ("iso-2022-jp", 21),
    ] }

    /// The charset `name` (a `Content-Type` parameter) names: the table's own spelling of
    /// it, never the header's text, and its encoding; `nil` for a name the table lacks.
    @_alwaysEmitIntoClient
    static func charset(named name: String?) -> (name: String, encoding: String.Encoding)? {
        guard let name = name?.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")).lowercased(), !name.isEmpty else {
            return nil
        }
        for entry in table where entry.name == name {
            return (entry.name, String.Encoding(rawValue: entry.rawValue))
        }
        return nil
    }
}
