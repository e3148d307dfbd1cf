#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
import EasyNetworkDigest
#endif
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
/// Only a response that passed validation and mapping is stored: a 2xx the envelope,
/// the interceptors' `validate` and the request's mapping all accepted. Entries are
/// keyed by method, URL, a hash of the body and a SHA-256 of the credentials sent
/// (the authenticator's token, `Authorization`, `Proxy-Authorization`, `Cookie`), and
/// answer only a request that sends the same values of the headers the response's
/// `Vary` names. Nothing is stored for `Cache-Control: no-store` (request or
/// response) or `Vary: *`; a `private` response is stored only for a request that
/// carried a credential, under that credential. `Set-Cookie` is never written to disk.
/// Entries are checked when read: a corrupt or truncated entry, or one written by an
/// older version of the format, is removed and treated as a miss.
public final class ResponseCache: @unchecked Sendable {
    // unchecked: `swept` is read and written only under `lock`; the rest is immutable.
    /// The folder the entries live in.
    public let directory: URL
    /// The most bytes the entries may take; the least recently used go first.
    public let maxBytes: Int
    private let lock = NSLock()
    /// Whether entries of older formats were removed yet; read under `lock`.
    private var swept = false
    /// The format of an entry; older entries are ignored and removed.
    private static let magic: [UInt8] = Array("ENC2".utf8)
    /// The file name prefix of the current format.
    private static let filePrefix = "v2-"

    /// A cache in `directory`, or in `<caches>/EasyNetwork/<name>` when `directory` is
    /// `nil`. Without a `name`, the folder is named after the module that makes the
    /// cache (your SDK), so two SDKs in one app never share entries or a size cap;
    /// give each host its own `name` to give it its own folder and cap. A name is
    /// escaped into one folder name (no `/`, no `..`). Leave `fileID` out: it tells the
    /// cache which module made it.
    public init(name: String? = nil, directory: URL? = nil, maxBytes: Int = 50 << 20, fileID: String = #fileID) {
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        let folder = Self.folderName(name ?? String(fileID.prefix { $0 != "/" }))
        self.directory = directory ?? caches.appendingPathComponent("EasyNetwork").appendingPathComponent(folder)
        self.maxBytes = max(0, maxBytes)
    }

    /// `name` as one folder name: letters, digits, `-`, `_` and inner dots are kept,
    /// every other byte is written `%XX`; the empty name is `%`.
    static func folderName(_ name: String) -> String {
        guard !name.isEmpty else { return "%" }
        var folder = ""
        for byte in name.utf8 {
            let kept = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || (byte == UInt8(ascii: ".") && !folder.isEmpty)
            let hex = String(byte, radix: 16, uppercase: true)
            folder += kept ? String(UnicodeScalar(byte)) : "%" + (byte < 16 ? "0" + hex : hex)
        }
        return folder
    }

    /// The bytes the entries take now.
    public var totalBytes: Int {
        lock.lock()
        defer { lock.unlock() }
        sweepOldFormats()
        var total = 0
        for size in files().sizes {
            total += size
        }
        return total
    }

    /// Removes every entry.
    public func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The stored response for `key`, or `nil`; a bad entry is removed. Reading an
    /// entry makes it the most recently used.
    func response(for key: String) -> CachedResponse? {
        lock.lock()
        defer { lock.unlock() }
        sweepOldFormats()
        let file = fileURL(for: key)
        guard let data = try? Data(contentsOf: file) else { return nil }
        guard let entry = Self.decode(data), entry.key == key else {
            try? FileManager.default.removeItem(at: file)
            return nil
        }
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
        return entry
    }

    /// Stores `entry` with `body` (``CachePlugIn`` decided it may be stored), then
    /// evicts down to the cap.
    func store(_ entry: CachedResponse, body: Data) {
        guard body.count <= maxBytes, let data = Self.encode(entry, body: body) else {
            remove(key: entry.key)
            return
        }
        lock.lock()
        defer { lock.unlock() }
        sweepOldFormats()
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? data.write(to: fileURL(for: entry.key), options: .atomic)
        evict()
    }

    /// Removes the entry for `key`, if any.
    func remove(key: String) {
        lock.lock()
        defer { lock.unlock() }
        try? FileManager.default.removeItem(at: fileURL(for: key))
    }

    /// An entry as stored: magic, header length (4 bytes, big-endian), JSON header, body.
    /// The header's `bodyLength` and `bodyChecksum` are those of `body`.
    static func encode(_ entry: CachedResponse, body: Data) -> Data? {
        guard let header = entry.header(bodyLength: body.count, checksum: CachedResponse.checksum(body)) else { return nil }
        let length = UInt32(truncatingIfNeeded: header.count)
        var data = Data(magic)
        data.append(contentsOf: [UInt8(truncatingIfNeeded: length >> 24), UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)])
        data.append(header)
        data.append(body)
        return data
    }

    /// Reads an entry: magic, header length, header, body; `nil` when any part is off.
    static func decode(_ data: Data) -> CachedResponse? {
        let head = [UInt8](data.prefix(8))
        guard head.count == 8 else { return nil }
        var length = 0
        for index in 0..<4 {
            guard head[index] == magic[index] else { return nil }
            length = length << 8 | Int(head[4 + index])
        }
        let start = data.startIndex + 8
        guard length > 0, data.count >= 8 + length else { return nil }
        let body = data.subdata(in: (start + length)..<data.endIndex)
        guard let entry = CachedResponse.read(header: data.subdata(in: start..<(start + length)), body: body),
              body.count == entry.bodyLength, CachedResponse.checksum(body) == entry.bodyChecksum
        else { return nil }
        return entry
    }

    // MARK: Files

    private func fileURL(for key: String) -> URL {
        directory.appendingPathComponent(Self.filePrefix + SHA256.hex(Data(key.utf8)) + ".cache")
    }

    /// Once per cache, under `lock`: removes the entries an older format wrote (they
    /// may hold responses keyed without credentials).
    private func sweepOldFormats() {
        guard !swept else { return }
        swept = true
        for url in files().urls where !url.lastPathComponent.hasPrefix(Self.filePrefix) {
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// The entry files, with their sizes and when each was last used, in the folder's order.
    private func files() -> (urls: [URL], sizes: [Int], used: [Double]) {
        var files: (urls: [URL], sizes: [Int], used: [Double]) = ([], [], [])
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasSuffix(".cache") {
            let url = directory.appendingPathComponent(name)
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            files.urls.append(url)
            files.sizes.append((attributes?[.size] as? NSNumber)?.intValue ?? 0)
            files.used.append((attributes?[.modificationDate] as? Date)?.timeIntervalSinceReferenceDate ?? -.infinity)
        }
        return files
    }

    /// Removes least recently used entries until the total is under the cap.
    private func evict() {
        let (urls, sizes, entryTimes) = files()
        var used = entryTimes
        var total = 0
        for size in sizes {
            total += size
        }
        // The oldest first; a removed entry's time becomes +infinity.
        var left = urls.count
        while total > maxBytes, left > 0 {
            var oldest = 0
            for index in used.indices where used[index] < used[oldest] {
                oldest = index
            }
            try? FileManager.default.removeItem(at: urls[oldest])
            total -= sizes[oldest]
            used[oldest] = .infinity
            left -= 1
        }
    }
}
