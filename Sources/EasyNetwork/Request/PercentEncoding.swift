/// RFC 3986 percent-encoding over UTF-8 bytes (a `switch` over the byte says which sets
/// keep it): the hot path of every request URL, where Foundation's `CharacterSet` is slow
/// on Linux. Multipart names use it too (``formName``).
/// (A namespace of ``QueryStringEncoder``'s: no type of its own.)
package typealias PercentEncoding = QueryStringEncoder

extension QueryStringEncoder {
    /// `A–Z a–z 0–9 - . _ ~`: the only characters a query key or value keeps.
    static let unreserved: UInt8 = 1
    /// Path characters (`pchar` and `/`).
    static let path: UInt8 = 2
    /// Query characters (`pchar`, `/` and `?`).
    static let query: UInt8 = 4
    /// Every byte but CR, LF and `"`: a multipart name, escaped as the HTML standard's form
    /// encoding does (`%0D`, `%0A`, `%22`; these never occur inside a multi-byte character).
    @_alwaysEmitIntoClient
    package static var formName: UInt8 { 8 }

    /// `text` with every byte outside `allowed` written as `%XX`. With
    /// `keepingEscapes`, a `%` that starts a valid `%XX` stays, so encoded text is kept.
    /// (Compiled into the caller over a free function: a static member compiled a second
    /// entry without its unused type argument.)
    @_alwaysEmitIntoClient
    package static func encode(_ text: String, allowed: UInt8, keepingEscapes: Bool) -> String {
        percentEncoded(text, allowed, keepingEscapes)
    }

    /// Whether the byte at `index` stays as it is: allowed, or a `%` starting a kept escape.
    @inline(never)  // two callers
    fileprivate static func keeps(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, _ allowed: UInt8, _ keepingEscapes: Bool) -> Bool {
        let byte = bytes[index]
        let sets: UInt8
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: sets = unreserved | path | query | formName
        case 0x21, 0x24, 0x26...0x2C, 0x2F, 0x3A, 0x3B, 0x3D, 0x40: sets = path | query | formName  // ! $ & ' ( ) * + , / : ; = @
        case 0x3F: sets = query | formName  // ?
        case 0x0A, 0x0D, 0x22: sets = 0  // LF CR "
        default: sets = formName
        }
        return sets & allowed != 0
            || (keepingEscapes && byte == UInt8(ascii: "%") && index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2]))
    }

    /// The uppercase hex digit of `value` (0–15).
    fileprivate static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66)
    }
}

/// ``QueryStringEncoder/encode(_:allowed:keepingEscapes:)``.
@usableFromInline
func percentEncoded(_ text: String, _ allowed: UInt8, _ keepingEscapes: Bool) -> String {
    // Over the contiguous bytes of a native string (a copy for any other): far less
    // code than the UTF-8 view's iterator, and no copy of the bytes to encode them.
    let encode = { (bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? in
        // The exact length first, then the bytes by index: no appends, each of which
        // compiled a capacity check and a growth path.
        var length = 0
        for index in bytes.indices {
            length += QueryStringEncoder.keeps(bytes, at: index, allowed, keepingEscapes) ? 1 : 3
        }
        // Only allowed bytes and kept escapes: the text stays as it is.
        if length == bytes.count { return nil }
        var output = [UInt8](repeating: UInt8(ascii: "%"), count: length)
        var position = 0
        for index in bytes.indices {
            let byte = bytes[index]
            if QueryStringEncoder.keeps(bytes, at: index, allowed, keepingEscapes) {
                output[position] = byte
                position += 1
            } else {
                output[position + 1] = QueryStringEncoder.hexDigit(byte >> 4)
                output[position + 2] = QueryStringEncoder.hexDigit(byte & 0x0F)
                position += 3
            }
        }
        return output
    }
    guard let output = text.utf8.withContiguousStorageIfAvailable(encode) ?? Array(text.utf8).withUnsafeBufferPointer(encode) else { return text }
    return String(decoding: output, as: UTF8.self)
}
