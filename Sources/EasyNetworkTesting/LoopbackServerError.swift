import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure while setting up the listening socket of a ``LoopbackServer``.
///
/// Each case carries the `errno` value reported by the failing system call.
public enum LoopbackServerError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// `socket(2)` failed.
    case socket(errno: Int32)
    /// `bind(2)` to 127.0.0.1 failed.
    case bind(errno: Int32)
    /// `listen(2)` failed.
    case listen(errno: Int32)
    /// `getsockname(2)` failed, so the assigned port is unknown.
    case socketName(errno: Int32)

    /// A readable explanation, for example `bind failed: Address already in use (errno 98)`.
    public var description: String {
        switch self {
        case .socket(let code): return Self.describe("socket", code)
        case .bind(let code): return Self.describe("bind", code)
        case .listen(let code): return Self.describe("listen", code)
        case .socketName(let code): return Self.describe("getsockname", code)
        }
    }

    /// The same text as ``description``.
    public var errorDescription: String? { description }

    private static func describe(_ call: String, _ code: Int32) -> String {
        "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}
