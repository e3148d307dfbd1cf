import Foundation

/// A response as the cache keeps it.
struct CachedResponse: Codable, Equatable {
    var key: String
    var url: String
    var statusCode: Int
    var headers: [String: String]
    var storedAt: Date
    var bodyLength: Int
    var bodyChecksum: UInt64
    /// Not in the encoded header; read from the entry's body.
    var body = Data()

    enum CodingKeys: String, CodingKey {
        case key, url, statusCode, headers, storedAt, bodyLength, bodyChecksum
    }

    var etag: String? { header("ETag") }
    var lastModified: String? { header("Last-Modified") }

    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
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
