import Foundation

/// The URLs a host built lately, by api path and encoded query.
///
/// Parsing the text of a URL is the costliest step of building a request, and an SDK
/// asks for the same few URLs again and again. A host keeps one memo per base URL (a
/// new base URL gets a new, empty memo), so an entry never outlives the base it was
/// built on. The memo holds the last ``capacity`` URLs built, in one small array searched
/// in order (cheaper than hashing the key, and no dictionary type of its own).
final class URLMemo: @unchecked Sendable {  // unchecked: the fields below are guarded by `lock`
    /// The most entries kept; a new one then replaces the oldest.
    static let capacity = 16

    private let lock = Lock()
    @exclusivity(unchecked) private var entries: [(key: String, url: URL)] = []
    /// The entry the next new one replaces, once the memo is full.
    @exclusivity(unchecked) private var oldest = 0

    /// The URL built for `key`, if it is remembered.
    @inline(__always)  // one caller
    func url(for key: String) -> URL? {
        lock.lock()
        defer { lock.unlock() }
        for entry in entries where entry.key == key {
            return entry.url
        }
        return nil
    }

    /// Remembers `url` for `key`.
    @inline(__always)  // one caller
    func remember(_ url: URL, for key: String) {
        lock.lock()
        defer { lock.unlock() }
        if entries.count < Self.capacity {
            entries.append((key, url))
        } else {
            entries[oldest] = (key, url)
            oldest = (oldest + 1) % Self.capacity
        }
    }
}
