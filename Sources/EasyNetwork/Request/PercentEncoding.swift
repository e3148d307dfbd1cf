/// RFC 3986 percent-encoding over UTF-8 bytes with one lookup table (an entry per byte
/// value, a bit per set of kept characters): the hot path of every request URL, where
/// Foundation's `CharacterSet` is slow on Linux. Multipart names use it too (``formName``).
package enum PercentEncoding {
    /// `A–Z a–z 0–9 - . _ ~`: the only characters a query key or value keeps.
    static let unreserved: UInt8 = 1
    /// Path characters (`pchar` and `/`).
    static let path: UInt8 = 2
    /// Query characters (`pchar`, `/` and `?`).
    static let query: UInt8 = 4
    /// Every byte but CR, LF and `"`: a multipart name, escaped as the HTML standard's form
    /// encoding does (`%0D`, `%0A`, `%22`; these never occur inside a multi-byte character).
    package static let formName: UInt8 = 8

    /// For each byte value, the sets above that keep it (one table built once, instead of
    /// one per set).
    private static let kept: [UInt8] = {
        var kept = [UInt8](repeating: formName, count: 256)
        mark("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~", unreserved | path | query, in: &kept)
        mark("!$&'()*+,;=:@/", path | query, in: &kept)
        mark("?", query, in: &kept)
        mark("\r\n\"", 0, in: &kept)
        return kept
    }()

    /// Sets the entries of `characters` (ASCII) in `kept` to `sets` or, when `sets` is 0, to 0.
    @inline(never)
    private static func mark(_ characters: StaticString, _ sets: UInt8, in kept: inout [UInt8]) {
        characters.withUTF8Buffer { bytes in
            for byte in bytes {
                kept[Int(byte)] = sets == 0 ? 0 : kept[Int(byte)] | sets
            }
        }
    }

    /// `text` with every byte outside `allowed` written as `%XX`. With
    /// `keepingEscapes`, a `%` that starts a valid `%XX` stays, so encoded text is kept.
    package static func encode(_ text: String, allowed: UInt8, keepingEscapes: Bool) -> String {
        // Over the contiguous bytes of a native string (a copy for any other): far less
        // code than the UTF-8 view's iterator, and no copy of the bytes to encode them.
        let kept = Self.kept
        let encode = { (bytes: UnsafeBufferPointer<UInt8>) in Self.encode(bytes, of: text, allowed: allowed, kept: kept, keepingEscapes: keepingEscapes) }
        if let encoded = text.utf8.withContiguousStorageIfAvailable(encode) {
            return encoded
        }
        return Array(text.utf8).withUnsafeBufferPointer(encode)
    }

    /// ``encode(_:allowed:keepingEscapes:)`` of `text`, whose bytes are `bytes`.
    private static func encode(_ bytes: UnsafeBufferPointer<UInt8>, of text: String, allowed: UInt8, kept: [UInt8], keepingEscapes: Bool) -> String {
        var plain = true
        for byte in bytes where kept[Int(byte)] & allowed == 0 {
            plain = false
            break
        }
        if plain { return text }
        // The exact length first, then the bytes by index: no appends, each of which
        // compiled a capacity check and a growth path.
        var length = 0
        for index in bytes.indices {
            length += keeps(bytes, at: index, allowed, kept, keepingEscapes) ? 1 : 3
        }
        // Only valid escapes outside `allowed`: the text stays as it is.
        if length == bytes.count { return text }
        var output = [UInt8](repeating: UInt8(ascii: "%"), count: length)
        var position = 0
        for index in bytes.indices {
            let byte = bytes[index]
            if keeps(bytes, at: index, allowed, kept, keepingEscapes) {
                output[position] = byte
                position += 1
            } else {
                output[position + 1] = hexDigit(byte >> 4)
                output[position + 2] = hexDigit(byte & 0x0F)
                position += 3
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether the byte at `index` stays as it is: allowed, or a `%` starting a kept escape.
    private static func keeps(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, _ allowed: UInt8, _ kept: [UInt8], _ keepingEscapes: Bool) -> Bool {
        let byte = bytes[index]
        return kept[Int(byte)] & allowed != 0 || (keepingEscapes && byte == UInt8(ascii: "%") && isEscape(bytes, at: index))
    }

    /// The uppercase hex digit of `value` (0–15).
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    private static func isEscape(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2])
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

}
