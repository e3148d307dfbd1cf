#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response as the cache keeps it: immutable, shared by reference; and its file.
///
/// A file (see ``ResponseCache``) is `ENC2`, the header's length (4 bytes, big-endian),
/// the header, the body. The header is a JSON object with the keys `key`, `url`,
/// `statusCode`, `headers`, `storedAt` (seconds since 2001-01-01), `vary`, `bodyLength`
/// and `bodyChecksum` (FNV-1a of the body).
final class CachedResponse: Sendable {
    let key: String
    let statusCode: Int
    let headers: [String: String]
    /// When it was stored, in seconds since 2001-01-01.
    let storedAt: Double
    /// The SHA-256 of each request header the response's `Vary` names, as sent
    /// (``CacheKey/varyValues(_:of:)``); a request must match them to be answered.
    let vary: [String: String]
    let body: Data

    init(key: String, statusCode: Int, headers: [String: String], storedAt: Double, vary: [String: String], body: Data) {
        self.key = key
        self.statusCode = statusCode
        self.headers = headers
        self.storedAt = storedAt
        self.vary = vary
        self.body = body
    }

    /// The stored response, as an answer from `url`.
    @inline(never)  // three uses share one copy
    func httpResponse(url: URL) -> HTTPURLResponse? {
        HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: "HTTP/1.1", headerFields: headers)
    }

    /// Whether `request` sends the same values of the headers the response varies on.
    @inline(__always)  // one caller
    func matchesVary(of request: URLRequest) -> Bool {
        for (name, value) in vary where CacheKey.varyValue(name, of: request) != value {
            return false
        }
        return true
    }

    /// The headers of `response` that may be stored: all but those that carry
    /// credentials (`Set-Cookie`, `Set-Cookie2`, `Authentication-Info`,
    /// `Proxy-Authentication-Info`).
    @inline(__always)  // one caller
    static func storableHeaders(of response: HTTPURLResponse) -> [String: String] {
        var headers = [String: String]()  // not `[:]`: a literal compiles Dictionary(dictionaryLiteral:)
        for key in response.allHeaderFields.keys {
            // The value as the response reads it: a String, no description of an `Any`.
            // A credential's header is left out, whatever the case of its name (one list
            // lookup, where a switch compiles a comparison for each).
            guard let name = key as? String, let value = response.value(forHTTPHeaderField: name),
                  !CacheKey.lists(name.lowercased(), in: "set-cookie, set-cookie2, authentication-info, proxy-authentication-info")
            else { continue }
            CacheKey.put(value, name, in: &headers)
        }
        return headers
    }

    /// FNV-1a, 64 bits: enough to tell a torn or corrupted body from the one stored.
    @inline(never)  // writing and reading share one copy
    static func checksum(_ data: Data) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// The entry's file, its header saying `url`. The checksum is written as a signed
    /// number (its bit pattern), which every JSON reader keeps exact.
    @inline(__always)  // one caller
    func file(url: String) -> Data? {
        // Put one by one (see CacheKey.put): a literal compiles Dictionary(dictionaryLiteral:).
        var object = [String: Any]()
        CacheKey.put(key, "key", in: &object)
        CacheKey.put(url, "url", in: &object)
        CacheKey.put(statusCode, "statusCode", in: &object)
        CacheKey.put(headers, "headers", in: &object)
        CacheKey.put(storedAt, "storedAt", in: &object)
        CacheKey.put(vary, "vary", in: &object)
        CacheKey.put(body.count, "bodyLength", in: &object)
        CacheKey.put(Int64(bitPattern: Self.checksum(body)), "bodyChecksum", in: &object)
        guard let header = try? JSONSerialization.data(withJSONObject: object) else { return nil }
        var head = (0x454E_4332 << 32 | UInt64(UInt32(truncatingIfNeeded: header.count))).bigEndian  // "ENC2", the length
        var file = Data(bytes: &head, count: 8)
        file.append(header)
        file.append(body)
        return file
    }

    /// The entry a file holds (as ``file(url:)`` or an earlier version wrote it); `nil`
    /// when any part is off: the magic, the lengths, a field missing or of the wrong
    /// type, the body's length or checksum.
    static func read(_ file: Data) -> CachedResponse? {
        // The count and start read once: each Data accessor inlines a switch over its storage.
        let count = file.count
        guard count > 8 else { return nil }
        var head: UInt64 = 0  // the first 8 bytes, big-endian
        withUnsafeMutableBytes(of: &head) { _ = file.copyBytes(to: $0, count: 8) }
        head = UInt64(bigEndian: head)
        let start = file.startIndex + 8
        let length = Int(head & 0xFFFF_FFFF)
        let bodyLength = count - 8 - length
        guard head >> 32 == 0x454E_4332, length > 0, bodyLength >= 0 else { return nil }
        let body = file.subdata(in: (start + length)..<(start + length + bodyLength))
        guard let object = (try? JSONSerialization.jsonObject(with: file.subdata(in: start..<(start + length)))) as? [String: Any],
              let key = CacheKey.get("key", in: object, as: String.self),
              let statusCode = CacheKey.get("statusCode", in: object, as: Int.self),
              let headers = CacheKey.get("headers", in: object, as: [String: String].self),
              let storedAt = CacheKey.get("storedAt", in: object, as: Double.self),
              let vary = CacheKey.get("vary", in: object, as: [String: String].self),
              CacheKey.get("bodyLength", in: object, as: Int.self) == bodyLength,
              // An older entry holds the checksum unsigned, a newer one its bit pattern.
              CacheKey.get("bodyChecksum", in: object, as: NSNumber.self)?.uint64Value == checksum(body)
        else { return nil }
        return CachedResponse(key: key, statusCode: statusCode, headers: headers, storedAt: storedAt, vary: vary, body: body)
    }
}
