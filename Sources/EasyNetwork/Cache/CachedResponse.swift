import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response as the cache keeps it.
struct CachedResponse: Codable, Equatable {
    var key: String
    var url: String
    var statusCode: Int
    var headers: [String: String]
    var storedAt: Date
    /// The SHA-256 of each request header the response's `Vary` names, as sent
    /// (``CacheKey/varyValues(_:of:)``); a request must match them to be answered.
    var vary: [String: String]
    var bodyLength: Int
    var bodyChecksum: UInt64
    /// Not in the encoded header; read from the entry's body.
    var body = Data()

    enum CodingKeys: String, CodingKey {
        case key, url, statusCode, headers, storedAt, vary, bodyLength, bodyChecksum
    }

    /// Response headers never written to disk: they carry credentials.
    static let unstoredHeaders: Set<String> = ["set-cookie", "set-cookie2", "authentication-info", "proxy-authentication-info"]

    var etag: String? { header("ETag") }
    var lastModified: String? { header("Last-Modified") }

    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Whether `request` sends the same values of the headers the response varies on.
    func matchesVary(of request: URLRequest) -> Bool {
        CacheKey.varyValues(Array(vary.keys), of: request) == vary
    }

    /// The headers of `response` that may be stored.
    static func storableHeaders(of response: HTTPURLResponse) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, !unstoredHeaders.contains(name.lowercased()) {
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
}
