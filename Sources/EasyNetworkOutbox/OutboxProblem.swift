import Foundation

/// Something an ``Outbox`` had to do on its own that the SDK should know about, reported
/// to ``Outbox/onProblem``: never silent, never a crash, and never blocking the other entries.
public struct OutboxProblem: Sendable, CustomStringConvertible {
    /// What happened. A struct of constants, so later releases can add kinds.
    public struct Kind: RawRepresentable, Hashable, Sendable {
        /// A short stable name.
        public let rawValue: String

        /// A kind named `rawValue`.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// A torn or damaged file (bad checksum, cut short, unknown format) was moved to
        /// the folder's `aside` subfolder, at ``OutboxProblem/file``. Nothing of it is sent.
        public static let corruptFile = Kind(rawValue: "corruptFile")
        /// An entry or dead letter was removed to make room (``OutboxOptions/FullPolicy/dropOldest``).
        public static let dropped = Kind(rawValue: "dropped")
        /// A file operation failed while delivering (an entry that was sent could not be
        /// removed, say): the entry stays and is tried again, so it may arrive twice, with
        /// the same idempotency key.
        public static let storage = Kind(rawValue: "storage")
    }

    /// What happened.
    public let kind: Kind
    /// The entry concerned, when known.
    public let entryID: String?
    /// The file concerned (for ``Kind/corruptFile``, where it was set aside).
    public let file: URL?
    /// A sentence for a log.
    public let message: String

    /// `<kind>: <message>`.
    public var description: String {
        kind.rawValue + ": " + message
    }
}
