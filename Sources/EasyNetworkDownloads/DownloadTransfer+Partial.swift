#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// The unfinished bytes of a download and what is needed to resume them, kept next to
/// the destination (`<name>.partial` and `<name>.partial.json`). Nothing absolute is
/// stored: the files are found from the destination the caller gives, so they survive
/// an app restart that moves the app's container. (Functions of the destination, not a
/// type of their own: no metadata, descriptor, initializer or `deinit` for two URLs.)
///
/// The metadata is a JSON object with `url` and, when the server sent them, `etag`,
/// `lastModified` and `totalLength` (the resource's length in bytes), read and written
/// with `JSONSerialization`.
extension DownloadTransfer {
    /// `<name>.partial` (the bytes) next to `destination`, or `<name>.partial.json` (the
    /// metadata) when `metadata`.
    @inline(never)
    @_optimize(size)  // never per byte
    static func partialURL(_ destination: URL, metadata: Bool) -> URL {
        destination.deletingLastPathComponent()
            .appendingPathComponent(destination.lastPathComponent + (metadata ? ".partial.json" : ".partial"))
    }

    /// The length of the bytes on disk for `destination` and the `If-Range` value to
    /// resume them with, when both are usable for `url`: the metadata names `url` and a
    /// validator, and there are fewer bytes than the resource's length.
    @_optimize(size)  // never per byte
    static func resumePoint(_ destination: URL, for url: URL) -> (offset: Int64, ifRange: String)? {
        guard let metadata = storedMetadata(destination),
              text("url", of: metadata) == url.absoluteString,
              let ifRange = ifRangeValidator(etag: text("etag", of: metadata), lastModified: text("lastModified", of: metadata)),
              let size = partialLength(destination)
        else { return nil }
        if let total = (field("totalLength", of: metadata) as? NSNumber)?.int64Value, size >= total { return nil }
        return (size, ifRange)
    }

    /// The metadata kept for `destination`, when it is a readable JSON object.
    @inline(never)
    @_optimize(size)  // never per byte
    private static func storedMetadata(_ destination: URL) -> [String: Any]? {
        guard let data = try? Data(contentsOf: partialURL(destination, metadata: true)) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// The length of the bytes on disk for `destination`, where their end is (no attribute
    /// dictionary to search); `nil` when there are none.
    @inline(never)
    @_optimize(size)  // never per byte
    private static func partialLength(_ destination: URL) -> Int64? {
        guard let handle = try? FileHandle(forReadingFrom: partialURL(destination, metadata: false)) else { return nil }
        let end = try? handle.seekToEnd()
        try? handle.close()
        guard let size = end.flatMap(Int64.init(exactly:)), size > 0 else { return nil }
        return size
    }

    /// Writes the metadata of the bytes about to be written for `destination` (a field the
    /// server did not send is `null`, which earlier versions read as absent). No literal:
    /// the standard library's own dictionary code fills it (see ``put(_:_:into:)``).
    @_optimize(size)  // never per byte
    static func saveMetadata(_ destination: URL, url: String, etag: String?, lastModified: String?, totalLength: Int64?) {
        var metadata = [String: Any](minimumCapacity: 4)
        put(url, "url", into: &metadata)
        put(json(etag), "etag", into: &metadata)
        put(json(lastModified), "lastModified", into: &metadata)
        put(totalLength.map { NSNumber(value: $0) } ?? NSNull(), "totalLength", into: &metadata)
        if let data = try? JSONSerialization.data(withJSONObject: metadata) {
            try? data.write(to: partialURL(destination, metadata: true), options: .atomic)
        }
    }

    /// `dictionary[key]` and `dictionary[key] = value`, compiled once for every value
    /// type: the standard library's own code runs, not copies specialized for `Any` here.
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    private static func field<Value>(_ key: String, of dictionary: [String: Value]) -> Value? {
        dictionary[key]
    }

    /// The string at `key` (`nil` when absent or not a string): one cast for the three.
    @inline(never)
    private static func text(_ key: String, of metadata: [String: Any]) -> String? {
        field(key, of: metadata) as? String
    }

    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    private static func put<Value>(_ value: Value, _ key: String, into dictionary: inout [String: Value]) {
        dictionary[key] = value
    }

    /// `value`, or JSON's `null`.
    @inline(never)
    private static func json(_ value: String?) -> Any {
        if let value { return value }
        return NSNull()
    }

    /// Moves the complete bytes to `destination` (replacing a file there) and forgets the
    /// metadata. Called once the exchange accepted the download, never before.
    @_optimize(size)  // never per byte
    static func promote(_ destination: URL) throws {
        let files = FileManager.default
        if files.fileExists(atPath: destination.path) {
            try files.removeItem(at: destination)
        }
        try files.moveItem(at: partialURL(destination, metadata: false), to: destination)
        try? files.removeItem(at: partialURL(destination, metadata: true))
    }

    /// Deletes the bytes and the metadata kept for `destination`.
    @inline(never)  // one copy for its four callers
    @_optimize(size)  // never per byte
    static func discardPartial(_ destination: URL) {
        let files = FileManager.default
        try? files.removeItem(at: partialURL(destination, metadata: false))
        try? files.removeItem(at: partialURL(destination, metadata: true))
    }
}
