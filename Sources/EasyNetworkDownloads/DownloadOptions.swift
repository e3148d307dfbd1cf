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
    public var existing: Existing
    /// Whether the bytes of an earlier failed or cancelled attempt are kept and the
    /// download continues from them (HTTP `Range` guarded by `If-Range`). Default `true`.
    public var resumable: Bool
    /// Ask for the body in ranges, one request after another, starting with this many
    /// bytes (default 1 MB), or `nil` for one request. URLSession on Linux hands
    /// received data to its delegate without limit, so a network faster than the disk
    /// would fill memory; ranges bound what can pile up. A range that takes long
    /// (a slow network, where round trips would cost) doubles the next, up to 32 times
    /// this size; one that is fast halves it again. A server that ignores ranges sends
    /// the whole body in one response; a 416 (an empty file, a server that refuses
    /// ranges) starts over once with a plain GET; a server that names no validator for
    /// `If-Range` is asked for the whole body after the first range. All of these work.
    public var segmentSize: Int?

    /// Options; by default replace an existing file, resume from partial data, and ask
    /// in ranges from 1 MB.
    public init(existing: Existing = .replace, resumable: Bool = true, segmentSize: Int? = 1 << 20) {
        self.existing = existing
        self.resumable = resumable
        self.segmentSize = segmentSize.map { max(64 * 1024, $0) }
    }
}
