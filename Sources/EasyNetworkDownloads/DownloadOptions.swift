#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// How a download treats its destination and an earlier, unfinished attempt.
public struct DownloadOptions: Sendable {
    /// What to do when the destination file exists before the download starts.
    public enum Existing: Sendable {
        /// Replace it when the download succeeds (the default).
        case replace
        /// Fail at once with an `invalidRequest` error and leave it alone.
        case fail
    }

    /// What to do with an existing destination file.
    public var existing: Existing {
        @_alwaysEmitIntoClient get { storedExisting }
        @_alwaysEmitIntoClient set { self = DownloadOptions(newValue, storedResumable, storedSegmentSize) }
        @_alwaysEmitIntoClient _modify {
            var value = storedExisting
            yield &value
            self = DownloadOptions(value, storedResumable, storedSegmentSize)
        }
    }
    /// Whether the bytes of an earlier failed or cancelled attempt are kept and the
    /// download continues from them (HTTP `Range` guarded by `If-Range`). Default `true`.
    public var resumable: Bool {
        @_alwaysEmitIntoClient get { storedResumable }
        @_alwaysEmitIntoClient set { self = DownloadOptions(storedExisting, newValue, storedSegmentSize) }
        @_alwaysEmitIntoClient _modify {
            var value = storedResumable
            yield &value
            self = DownloadOptions(storedExisting, value, storedSegmentSize)
        }
    }
    /// Ask for the body in ranges, one request after another, starting with this many
    /// bytes (default 1 MB), or `nil` for one request. URLSession on Linux hands
    /// received data to its delegate without limit, so a network faster than the disk
    /// would fill memory; ranges bound what can pile up. A range that takes long
    /// (a slow network, where round trips would cost) doubles the next, up to 32 times
    /// this size; one that is fast halves it again. A server that ignores ranges sends
    /// the whole body in one response; a 416 (an empty file, a server that refuses
    /// ranges) starts over once with a plain GET; a server that names no validator for
    /// `If-Range` is asked for the whole body after the first range. All of these work.
    /// A download reads the size as at least 64 KB and at most 1 GB (the value set is kept
    /// as given).
    public var segmentSize: Int? {
        @_alwaysEmitIntoClient get { storedSegmentSize }
        @_alwaysEmitIntoClient set { self = DownloadOptions(storedExisting, storedResumable, newValue) }
        @_alwaysEmitIntoClient _modify {
            var value = storedSegmentSize
            yield &value
            self = DownloadOptions(storedExisting, storedResumable, value)
        }
    }

    // The values, read-only: the properties above are emitted into the programs that use
    // them (a setter makes new options), so the module carries one reader per value
    // instead of a getter, a setter and a two-part `modify`.
    @usableFromInline let storedExisting: Existing
    @usableFromInline let storedResumable: Bool
    @usableFromInline let storedSegmentSize: Int?

    /// Options holding exactly these values (a set ``segmentSize`` is kept as given).
    @_alwaysEmitIntoClient  // in its callers, as every member that makes options
    init(_ existing: Existing, _ resumable: Bool, _ segmentSize: Int?) {
        storedExisting = existing
        storedResumable = resumable
        storedSegmentSize = segmentSize
    }

    /// Options; by default replace an existing file, resume from partial data, and ask
    /// in ranges from 1 MB.
    @_alwaysEmitIntoClient  // in the programs that make options (the module only reads them)
    public init(existing: Existing = .replace, resumable: Bool = true, segmentSize: Int? = 1 << 20) {
        self.init(existing, resumable, segmentSize.map { max(64 * 1024, $0) })
    }
}
