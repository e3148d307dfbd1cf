import Foundation

/// Why an ``Outbox`` refused a request: ``Outbox/send(_:)`` throws it, and nothing was
/// stored (the outbox holds exactly what it held before).
///
/// Check ``code``; ``underlyingError`` holds the `NetworkError` of a request that could not
/// be built, or the `POSIXError` of a file operation.
public struct OutboxError: Error, Sendable, CustomStringConvertible {
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
        public static let full = Code(rawValue: "full")
        /// The entry alone is larger than ``OutboxOptions/maxBytes``.
        public static let tooLarge = Code(rawValue: "tooLarge")
        /// The folder could not be created or the entry could not be written, flushed or
        /// renamed into place (read-only folder, disk full, …): see ``OutboxError/underlyingError``.
        public static let storage = Code(rawValue: "storage")
        /// The request could not be built (bad URL, parameters JSON cannot hold), or it has a
        /// multipart body, which an outbox does not store: see ``OutboxError/underlyingError``.
        public static let invalidRequest = Code(rawValue: "invalidRequest")
    }

    /// The fields, in one object of constants: a copy of the error is one reference.
    private final class Fields: Sendable {
        let code: Code, message: String, underlyingError: (any Error)?

        init(code: Code, message: String, underlyingError: (any Error)?) {
            self.code = code
            self.message = message
            self.underlyingError = underlyingError
        }
    }

    private let fields: Fields

    /// What went wrong.
    public var code: Code { fields.code }
    /// A sentence for a log.
    public var message: String { fields.message }
    /// The error underneath, when there is one.
    public var underlyingError: (any Error)? { fields.underlyingError }

    /// An error; the outbox makes these, tests may too.
    public init(code: Code, message: String, underlyingError: (any Error)? = nil) {
        fields = Fields(code: code, message: message, underlyingError: underlyingError)
    }

    /// `Outbox.<code>: <message>`.
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
    static func fail(_ code: Code, _ message: String, _ underlyingError: (any Error)? = nil) throws -> Never {
        throw OutboxError(code: code, message: message, underlyingError: underlyingError)
    }
}

extension OutboxError: LocalizedError {
    /// The message, as ``description``.
    public var errorDescription: String? { description }
}
