#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response as the cache keeps it: immutable, shared by reference.
///
/// On disk (see ``ResponseCache``) its header is a JSON object with the keys `key`,
/// `url`, `statusCode`, `headers`, `storedAt` (seconds since 2001-01-01), `vary`,
/// `bodyLength` and `bodyChecksum`, the body follows it.
final class CachedResponse: Sendable {
    let key: String
    let url: String
    let statusCode: Int
    let headers: [String: String]
    let storedAt: Date
    /// The SHA-256 of each request header the response's `Vary` names, as sent
    /// (``CacheKey/varyValues(_:of:)``); a request must match them to be answered.
    let vary: [String: String]
    let bodyLength: Int
    let bodyChecksum: UInt64
    /// Not in the encoded header; read from the entry's body.
    let body: Data

    init(
        key: String,
        url: String,
        statusCode: Int,
        headers: [String: String],
        storedAt: Date,
        vary: [String: String],
        bodyLength: Int,
        bodyChecksum: UInt64,
        body: Data = Data()
    ) {
        self.key = key
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.storedAt = storedAt
        self.vary = vary
        self.bodyLength = bodyLength
        self.bodyChecksum = bodyChecksum
        self.body = body
    }

    var etag: String? { header("ETag") }
    var lastModified: String? { header("Last-Modified") }

    func header(_ name: String) -> String? {
        for (key, value) in headers where key.caseInsensitiveCompare(name) == .orderedSame {
            return value
        }
        return nil
    }

    /// Whether `request` sends the same values of the headers the response varies on.
    func matchesVary(of request: URLRequest) -> Bool {
        for (name, value) in vary where CacheKey.varyValue(name, of: request) != value {
            return false
        }
        return true
    }

    /// The headers of `response` that may be stored: all but those that carry
    /// credentials (`Set-Cookie`, `Set-Cookie2`, `Authentication-Info`,
    /// `Proxy-Authentication-Info`).
    static func storableHeaders(of response: HTTPURLResponse) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String else { continue }
            switch name.lowercased() {
            case "set-cookie", "set-cookie2", "authentication-info", "proxy-authentication-info":
                continue
            default:
                headers[name] = "\(value)"
            }
        }
        return headers
    }

    /// FNV-1a, 64 bits: enough to tell a torn or corrupted body from the one stored.
    static func checksum(_ data: Data) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// The JSON header of this entry, for a body of `length` bytes with `checksum`. The
    /// checksum is written as a signed number (its bit pattern), which every JSON
    /// reader keeps exact.
    func header(bodyLength length: Int, checksum: UInt64) -> Data? {
        let object: [String: Any] = [
            "key": key, "url": url, "statusCode": statusCode, "headers": headers,
            "storedAt": storedAt.timeIntervalSinceReferenceDate, "vary": vary,
            "bodyLength": length, "bodyChecksum": Int64(bitPattern: checksum),
        ]
        return try? JSONSerialization.data(withJSONObject: object)
    }

    /// The entry a JSON header describes (as ``header(bodyLength:checksum:)`` or
    /// `JSONEncoder` wrote it), with `body`; `nil` when a field is missing or of the
    /// wrong type.
    static func read(header: Data, body: Data) -> CachedResponse? {
        guard let object = (try? JSONSerialization.jsonObject(with: header)) as? [String: Any],
              let key = object["key"] as? String,
              let url = object["url"] as? String,
              let statusCode = object["statusCode"] as? Int,
              let headers = object["headers"] as? [String: String],
              let storedAt = object["storedAt"] as? Double,
              let vary = object["vary"] as? [String: String],
              let bodyLength = object["bodyLength"] as? Int,
              // An older entry holds the checksum unsigned, a newer one its bit pattern.
              let checksum = (object["bodyChecksum"] as? NSNumber)?.uint64Value
        else { return nil }
        return CachedResponse(
            key: key, url: url, statusCode: statusCode, headers: headers,
            storedAt: Date(timeIntervalSinceReferenceDate: storedAt), vary: vary,
            bodyLength: bodyLength, bodyChecksum: checksum, body: body
        )
    }
}
