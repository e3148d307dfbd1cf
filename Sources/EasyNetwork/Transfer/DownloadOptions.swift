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

    /// Options; by default replace an existing file and resume from partial data.
    public init(existing: Existing = .replace, resumable: Bool = true) {
        self.existing = existing
        self.resumable = resumable
    }
}
