import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A canned answer served by ``HTTPStubs`` through ``StubURLProtocol``.
public struct HTTPStubReply: Sendable {
    let status: Int
    let headers: [String: String]
    let body: Data
    let delay: TimeInterval
    let error: URLError?

    /// A response with any status code, headers and body, optionally delivered after `delay` seconds.
    public static func status(_ code: Int, headers: [String: String] = [:], body: Data = Data(), delay: TimeInterval = 0) -> HTTPStubReply {
        HTTPStubReply(status: code, headers: headers, body: body, delay: max(0, delay), error: nil)
    }

    /// A JSON response (`Content-Type: application/json`) from ready-made JSON text.
    public static func json(_ text: String, status: Int = 200, delay: TimeInterval = 0) -> HTTPStubReply {
        .status(status, headers: ["Content-Type": "application/json"], body: Data(text.utf8), delay: delay)
    }

    /// Fails the task with `error` (for example `URLError(.timedOut)`), optionally after `delay` seconds.
    public static func failure(_ error: URLError, delay: TimeInterval = 0) -> HTTPStubReply {
        HTTPStubReply(status: 0, headers: [:], body: Data(), delay: max(0, delay), error: error)
    }
}
