/// HTTP field text as RFC 9110 defines it: names are ASCII tokens compared without
/// regard to case, and values are surrounded by optional spaces and tabs. Plain byte
/// work: Foundation's locale-aware comparison and trimming cost the server more than
/// the rest of a request's parsing.
enum HTTPFieldText {
    /// Whether two field names are equal, ignoring ASCII case.
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.elementsEqual(rhs.utf8) { lowered($0) == lowered($1) }
    }

    /// `text` without leading and trailing spaces and tabs; other white space (a
    /// no-break space, for example) is part of the value, as RFC 9110 has it.
    static func trimmed(_ text: Substring) -> String {
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
              let last = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        // Both ends sit next to ASCII spaces (or the text's ends): whole scalars.
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        (65...90).contains(byte) ? byte + 32 : byte
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 32 || byte == 9
    }
}
