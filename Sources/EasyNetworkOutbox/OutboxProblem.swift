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

    /// The fields, in one object of constants: a copy of the problem is one reference.
    private final class Fields: Sendable {
        let kind: Kind, entryID: String?, file: URL?, message: String

        init(kind: Kind, entryID: String?, file: URL?, message: String) {
            self.kind = kind
            self.entryID = entryID
            self.file = file
            self.message = message
        }
    }

    private let fields: Fields

    init(kind: Kind, entryID: String?, file: URL?, message: String) {
        fields = Fields(kind: kind, entryID: entryID, file: file, message: message)
    }

    /// What happened.
    public var kind: Kind { fields.kind }
    /// The entry concerned, when known.
    public var entryID: String? { fields.entryID }
    /// The file concerned (for ``Kind/corruptFile``, where it was set aside).
    public var file: URL? { fields.file }
    /// A sentence for a log.
    public var message: String { fields.message }

    /// `<kind>: <message>`.
    public var description: String {
        fields.kind.rawValue + ": " + fields.message
    }
}
