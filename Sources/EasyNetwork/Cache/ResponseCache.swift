import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A disk cache of responses for one host, with ETag / Last-Modified revalidation that
/// works on Linux too (where URLCache does not revalidate), a size cap and
/// least-recently-used eviction.
///
/// ```swift
/// host.responseCache = ResponseCache(name: "my-sdk", maxBytes: 20 << 20)
/// // per request: var cachePolicy: CachePolicy? { .revalidate }
/// ```
///
/// Entries are keyed by method, URL and a hash of the body, stored under the caches
/// directory, and checked when read: a corrupt or truncated entry is removed and
/// treated as a miss. Only 2xx responses without `Cache-Control: no-store` are stored.
public final class ResponseCache: @unchecked Sendable {
    /// The folder the entries live in.
    public let directory: URL
    /// The most bytes the entries may take; the least recently used go first.
    public let maxBytes: Int
    private let lock = NSLock()
    private static let magic = Data("ENC1".utf8)

    /// A cache in `directory`, or in `<caches>/EasyNetwork/<name>` when `nil`.
    public init(name: String = "default", directory: URL? = nil, maxBytes: Int = 50 << 20) {
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        self.directory = directory ?? caches.appendingPathComponent("EasyNetwork").appendingPathComponent(name)
        self.maxBytes = max(0, maxBytes)
    }

    /// The bytes the entries take now.
    public var totalBytes: Int {
        lock.lock()
        defer { lock.unlock() }
        return files().reduce(0) { $0 + $1.size }
    }

    /// Removes every entry.
    public func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The key of a request: method, URL and a hash of its body.
    static func key(for request: URLRequest) -> String {
        let body = request.httpBody.map { String(CachedResponse.checksum($0), radix: 16) } ?? "-"
        return "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "") \(body)"
    }

    /// The stored response for `key`, or `nil`; a bad entry is removed. Reading an
    /// entry makes it the most recently used.
    func response(for key: String) -> CachedResponse? {
        lock.lock()
        defer { lock.unlock() }
        let file = fileURL(for: key)
        guard let data = try? Data(contentsOf: file) else { return nil }
        guard let entry = Self.decode(data), entry.key == key else {
            try? FileManager.default.removeItem(at: file)
            return nil
        }
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
        return entry
    }

    /// Stores a successful response, then evicts down to the cap.
    func store(_ response: HTTPURLResponse, body: Data, for key: String) {
        guard (200..<300).contains(response.statusCode),
              !(response.value(forHTTPHeaderField: "Cache-Control")?.lowercased().contains("no-store") ?? false),
              body.count <= maxBytes
        else { return }
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String { headers[name] = "\(value)" }
        }
        let entry = CachedResponse(
            key: key,
            url: response.url?.absoluteString ?? "",
            statusCode: response.statusCode,
            headers: headers,
            storedAt: Date(),
            bodyLength: body.count,
            bodyChecksum: CachedResponse.checksum(body)
        )
        guard let data = Self.encode(entry, body: body) else { return }
        lock.lock()
        defer { lock.unlock() }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? data.write(to: fileURL(for: key), options: .atomic)
        evict()
    }

    /// Marks a stored response fresh again (after a `304`), from the copy in hand.
    func touch(_ entry: CachedResponse) {
        var entry = entry
        entry.storedAt = Date()
        guard let data = Self.encode(entry, body: entry.body) else { return }
        lock.lock()
        defer { lock.unlock() }
        try? data.write(to: fileURL(for: entry.key), options: .atomic)
    }

    /// An entry as stored: magic, header length, JSON header, body.
    private static func encode(_ entry: CachedResponse, body: Data) -> Data? {
        guard let header = try? JSONEncoder().encode(entry) else { return nil }
        var data = magic
        withUnsafeBytes(of: UInt32(header.count).bigEndian) { data.append(contentsOf: $0) }
        data.append(header)
        data.append(body)
        return data
    }

    // MARK: Files

    private func fileURL(for key: String) -> URL {
        let low = CachedResponse.checksum(Data(key.utf8))
        let high = CachedResponse.checksum(Data(String(key.reversed()).utf8))
        return directory.appendingPathComponent(String(high, radix: 16) + String(low, radix: 16) + ".cache")
    }

    private func files() -> [(url: URL, size: Int, used: Date)] {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        let urls = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)) ?? []
        return urls.filter { $0.pathExtension == "cache" }.map { url in
            let values = try? url.resourceValues(forKeys: Set(keys))
            return (url, values?.fileSize ?? 0, values?.contentModificationDate ?? .distantPast)
        }
    }

    /// Removes least recently used entries until the total is under the cap.
    private func evict() {
        var entries = files()
        var total = entries.reduce(0) { $0 + $1.size }
        guard total > maxBytes else { return }
        entries.sort { $0.used < $1.used }
        for entry in entries where total > maxBytes {
            try? FileManager.default.removeItem(at: entry.url)
            total -= entry.size
        }
    }

    /// Reads an entry: magic, header length, header, body; `nil` when any part is off.
    static func decode(_ data: Data) -> CachedResponse? {
        guard data.count >= 8, data.prefix(4) == magic else { return nil }
        let length = data.dropFirst(4).prefix(4).reduce(0) { ($0 << 8) | Int($1) }
        guard length > 0, data.count >= 8 + length,
              var entry = try? JSONDecoder().decode(CachedResponse.self, from: data.subdata(in: 8..<(8 + length)))
        else { return nil }
        let body = data.subdata(in: (8 + length)..<data.count)
        guard body.count == entry.bodyLength, CachedResponse.checksum(body) == entry.bodyChecksum else { return nil }
        entry.body = body
        return entry
    }
}
