import Foundation

/// Something an ``Outbox`` handled on its own that the SDK should know about, reported to
/// ``Outbox/onProblem``: never silent, never a crash, and never blocking the other entries.
/// The same value as ``OutboxError`` (its ``OutboxError/kind`` is its code, with
/// ``OutboxError/entryID`` and ``OutboxError/file`` set), one type fewer in your binary.
public typealias OutboxProblem = OutboxError

/// Why an ``Outbox`` refused a request: ``Outbox/send(_:)`` throws it, and nothing was
/// stored (the outbox holds exactly what it held before); also a problem the outbox handled
/// on its own, reported to ``Outbox/onProblem`` (``OutboxProblem``: a damaged file set
/// aside, an entry dropped to make room, a file it could not remove).
///
/// Check ``code``; ``underlyingError`` holds the `NetworkError` of a request that could not
/// be built, or the `POSIXError` of a file operation.
public struct OutboxError: Error, Sendable, CustomStringConvertible {
    /// A problem's code: `OutboxProblem.Kind` is ``Code``.
    public typealias Kind = Code

    /// What went wrong. A struct of constants rather than an enum, so that later releases
    /// can add codes without breaking a `switch`.
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// A short stable name (`"full"`, `"storage"`, …).
        public let rawValue: String

        /// A code named `rawValue`.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The outbox holds ``OutboxOptions/maxEntries`` entries or ``OutboxOptions/maxBytes``
        /// bytes (dead letters included) and its ``OutboxOptions/whenFull`` policy is
        /// ``OutboxOptions/FullPolicy/refuse``, or dropping could not make room.
        @_alwaysEmitIntoClient
        public static var full: Code { Code(rawValue: "full") }
        /// The entry alone is larger than ``OutboxOptions/maxBytes``.
        @_alwaysEmitIntoClient
        public static var tooLarge: Code { Code(rawValue: "tooLarge") }
        /// The folder could not be created or the entry could not be written, flushed or
        /// renamed into place (read-only folder, disk full, …): see ``OutboxError/underlyingError``.
        @_alwaysEmitIntoClient
        public static var storage: Code { Code(rawValue: "storage") }
        /// The request could not be built (bad URL, parameters JSON cannot hold), or it has a
        /// multipart body, which an outbox does not store: see ``OutboxError/underlyingError``.
        @_alwaysEmitIntoClient
        public static var invalidRequest: Code { Code(rawValue: "invalidRequest") }
        /// A problem, not thrown: a torn or damaged file (bad checksum, cut short, unknown
        /// format) was moved to the folder's `aside` subfolder, at ``OutboxError/file``.
        /// Nothing of it is sent.
        @_alwaysEmitIntoClient
        public static var corruptFile: Code { Code(rawValue: "corruptFile") }
        /// A problem, not thrown: an entry or dead letter was removed to make room
        /// (``OutboxOptions/FullPolicy/dropOldest``).
        @_alwaysEmitIntoClient
        public static var dropped: Code { Code(rawValue: "dropped") }
    }

    /// The fields, in one object of constants: a copy of the error is one reference.
    private final class Fields: Sendable {
        let code: Code, message: String, underlyingError: (any Error)?, entryID: String?, file: URL?

        init(code: Code, message: String, underlyingError: (any Error)?, entryID: String?, file: URL?) {
            self.code = code
            self.message = message
            self.underlyingError = underlyingError
            self.entryID = entryID
            self.file = file
        }
    }

    private let fields: Fields

    /// What went wrong.
    public var code: Code { fields.code }
    /// A sentence for a log.
    public var message: String { fields.message }
    /// The error underneath, when there is one.
    public var underlyingError: (any Error)? { fields.underlyingError }
    /// A problem's entry, when known (`nil` for an error ``Outbox/send(_:)`` throws).
    public var entryID: String? { fields.entryID }
    /// A problem's file (for ``Code/corruptFile``, where it was set aside).
    public var file: URL? { fields.file }
    /// A problem's kind: its ``code``.
    @_alwaysEmitIntoClient
    public var kind: Code { code }

    /// An error; the outbox makes these, tests may too.
    public init(code: Code, message: String, underlyingError: (any Error)? = nil) {
        fields = Fields(code: code, message: message, underlyingError: underlyingError, entryID: nil, file: nil)
    }

    /// A problem about entry `entryID` or `file`.
    init(code: Code, message: String, entryID: String?, file: URL?) {
        fields = Fields(code: code, message: message, underlyingError: nil, entryID: entryID, file: file)
    }

    /// `Outbox.<code>: <message>`.
    @inline(never)  // one body, for errorDescription too
    public var description: String {
        "Outbox." + fields.code.rawValue + ": " + fields.message
    }

    /// Throws a storage error for the failed POSIX call `call` on `path`, which set `errno` to `code`.
    @inline(never)
    static func storage(_ call: String, _ path: String, errno code: Int32) throws -> Never {
        try fail(.storage, call + " " + path + ": " + String(cString: strerror(code)), POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
    }

    /// Throws an error (one place that makes and throws them all).
    @inline(never)
    @_optimize(size)
    static func fail(_ code: Code, _ message: String, _ underlyingError: (any Error)? = nil) throws -> Never {
        throw OutboxError(code: code, message: message, underlyingError: underlyingError)
    }
}

extension OutboxError: LocalizedError {
    /// The message, as ``description``.
    public var errorDescription: String? { description }
}
