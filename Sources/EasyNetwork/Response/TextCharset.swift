import Foundation

/// Maps the charset names servers put in `Content-Type` to `String.Encoding`, without
/// CoreFoundation (which Linux does not expose).
enum TextCharset {
    static func encoding(named name: String?) -> String.Encoding? {
        guard let name = name?.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")).lowercased(), !name.isEmpty else {
            return nil
        }
        // A table searched in order rather than a switch: a switch over strings compiles a
        // comparison per name.
        let table: [(name: String, encoding: String.Encoding)] = [
            ("utf-8", .utf8), ("utf8", .utf8),
            ("utf-16", .utf16),
            ("utf-16le", .utf16LittleEndian),
            ("utf-16be", .utf16BigEndian),
            ("utf-32", .utf32),
            ("us-ascii", .ascii), ("ascii", .ascii),
            ("iso-8859-1", .isoLatin1), ("latin1", .isoLatin1), ("iso_8859-1", .isoLatin1), ("l1", .isoLatin1),
            ("iso-8859-2", .isoLatin2), ("latin2", .isoLatin2),
            ("windows-1252", .windowsCP1252), ("cp1252", .windowsCP1252),
            ("windows-1251", .windowsCP1251), ("cp1251", .windowsCP1251),
            ("shift_jis", .shiftJIS), ("shift-jis", .shiftJIS), ("sjis", .shiftJIS),
            ("euc-jp", .japaneseEUC),
            ("iso-2022-jp", .iso2022JP),
        ]
        for entry in table where entry.name == name {
            return entry.encoding
        }
        return nil
    }
}
