import Foundation

/// The URLs a host built lately, by api path and encoded query.
///
/// Parsing the text of a URL is the costliest step of building a request, and an SDK
/// asks for the same few URLs again and again. A host keeps one memo per base URL (a
/// new base URL gets a new, empty memo), so an entry never outlives the base it was
/// built on. The memo holds at most ``capacity`` entries and starts over when full.
final class URLMemo: @unchecked Sendable {
    /// The most entries kept.
    static let capacity = 256

    private let urls = Protected([String: URL]())

    /// The URL built for `key`, if it is remembered.
    func url(for key: String) -> URL? {
        urls.read { $0[key] }
    }

    /// Remembers `url` for `key`.
    func remember(_ url: URL, for key: String) {
        urls.write { urls in
            if urls.count >= Self.capacity {
                urls.removeAll(keepingCapacity: true)
            }
            urls[key] = url
        }
    }
}
