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
    /// Continue in ranges, one request after another, starting with this many bytes
    /// (default 1 MB), or `nil` for one request. The first request asks for the whole
    /// body; when the response shows the server serves ranges (`Accept-Ranges: bytes`,
    /// an ETag or Last-Modified for `If-Range`, no content coding), it is cut after this
    /// many bytes and the rest comes in ranges. URLSession on Linux hands
    /// received data to its delegate without limit, so a network faster than the disk
    /// would fill memory; ranges bound what can pile up. A range that takes long
    /// (a slow network, where round trips would cost) doubles the next, up to 32 times
    /// this size; one that is fast halves it again. A server that ignores or refuses
    /// (416) ranges sends the whole body in one response, which works too.
    public var segmentSize: Int?

    /// Options; by default replace an existing file, resume from partial data, and ask
    /// in ranges from 1 MB.
    public init(existing: Existing = .replace, resumable: Bool = true, segmentSize: Int? = 1 << 20) {
        self.existing = existing
        self.resumable = resumable
        self.segmentSize = segmentSize.map { max(64 * 1024, $0) }
    }
}
