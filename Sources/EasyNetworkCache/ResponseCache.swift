#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
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
public final class ResponseCache: Sendable {
    /// The folder the entries live in.
    public let directory: URL
    /// The most bytes the entries may take; the least recently used go first.
    public let maxBytes: Int
    /// Serializes the cache's file operations.
    private let lock = Lock()

    /// A cache in `directory`, or in `<caches>/EasyNetwork/<name>` when `directory` is
    /// `nil`. Without a `name`, the folder is named after the module that makes the
    /// cache (your SDK), so two SDKs in one app never share entries or a size cap;
    /// give each host its own `name` to give it its own folder and cap. A name is
    /// escaped into one folder name (no `/`, no `..`). Leave `fileID` out: it tells the
    /// cache which module made it.
    @_optimize(size)  // configuration and the folder's upkeep: the file system, not this code, takes the time
    public init(name: String? = nil, directory: URL? = nil, maxBytes: Int = 50 << 20, fileID: String = #fileID) {
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        let folder = Self.folderName(name ?? fileID.components(separatedBy: "/")[0])  // never empty: at least one component
        self.directory = directory ?? caches.appendingPathComponent("EasyNetwork").appendingPathComponent(folder)
        self.maxBytes = max(0, maxBytes)
    }

    /// `name` as one folder name: letters, digits, `-`, `_` and inner dots are kept,
    /// every other byte is written `%XX`; the empty name is `%`.
    @inline(__always)  // one caller
    static func folderName(_ name: String) -> String {
        let kept = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
        let folder = name.addingPercentEncoding(withAllowedCharacters: kept) ?? ""
        if folder.isEmpty { return "%" }
        return folder.hasPrefix(".") ? "%2E" + folder.dropFirst() : folder
    }

    /// The bytes the entries take now.
    @_optimize(size)  // a question for tools and tests: the file system takes the time
    public var totalBytes: Int {
        lock.lock()
        defer { lock.unlock() }
        var total = 0
        for file in files() {
            total += file.size
        }
        return total
    }

    /// Removes every entry.
    public func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        Self.remove(directory)
    }

    /// The stored response for `key`, or `nil`; a bad entry is removed. Reading an
    /// entry makes it the most recently used.
    func response(for key: String) -> CachedResponse? {
        lock.lock()
        defer { lock.unlock() }
        let file = fileURL(for: key)
        guard let data = try? Data(contentsOf: file) else { return nil }
        guard let entry = CachedResponse.read(data), entry.key == key else {
            Self.remove(file)
            return nil
        }
        var touched = file
        var used = URLResourceValues()
        used.contentModificationDate = Date()
        try? touched.setResourceValues(used)
        return entry
    }

    /// Stores `entry`, its header saying `url` (``CachePlugIn`` decided it may be
    /// stored), then evicts down to the cap.
    func store(_ entry: CachedResponse, url: String) {
        guard entry.body.count <= maxBytes, let data = entry.file(url: url) else {
            remove(key: entry.key)
            return
        }
        lock.lock()
        defer { lock.unlock() }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? data.write(to: fileURL(for: entry.key), options: .atomic)
        evict()
    }

    /// Removes the entry for `key`, if any.
    func remove(key: String) {
        lock.lock()
        defer { lock.unlock() }
        Self.remove(fileURL(for: key))
    }

    // MARK: Files

    /// Removes the file or folder at `url`, if it can (a missing one is no error to report).
    @inline(never)  // five callers share one copy
    private static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    /// The file of the entry for `key`; `v2-` names the format (entries keyed with credentials).
    private func fileURL(for key: String) -> URL {
        directory.appendingPathComponent("v2-" + CacheKey.digest(key) + ".cache")
    }

    /// Under `lock`: the entry files, with their sizes and when each was last used, in
    /// the folder's order. Removes the entries an older format wrote (they may hold
    /// responses keyed without credentials).
    @_optimize(size)  // configuration and the folder's upkeep: the file system, not this code, takes the time
    private func files() -> [(url: URL, size: Int, used: Double)] {
        var files: [(url: URL, size: Int, used: Double)] = []
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasSuffix(".cache") {
            let url = directory.appendingPathComponent(name)
            guard name.hasPrefix("v2-") else {
                Self.remove(url)
                continue
            }
            let values = try? url.resourceValues(forKeys: CacheKey.set([.fileSizeKey, .contentModificationDateKey]))
            CacheKey.append((url, values?.fileSize ?? 0, values?.contentModificationDate?.timeIntervalSinceReferenceDate ?? -.infinity), to: &files)
        }
        return files
    }

    /// Removes least recently used entries until the total is under the cap.
    @_optimize(size)  // configuration and the folder's upkeep: the file system, not this code, takes the time
    private func evict() {
        let files = files()
        var total = 0
        for file in files {
            total += file.size
        }
        // The oldest first (the first listed among equals): each turn takes the least
        // (time, index) after the one removed last, so the list is never changed.
        var last = (used: -Double.infinity, index: -1)
        while total > maxBytes {
            var oldest = -1
            for index in files.indices {
                let used = files[index].used
                guard used > last.used || (used == last.used && index > last.index) else { continue }
                if oldest < 0 || used < files[oldest].used { oldest = index }
            }
            guard oldest >= 0 else { break }
            Self.remove(files[oldest].url)
            total -= files[oldest].size
            last = (files[oldest].used, oldest)
        }
    }
}
