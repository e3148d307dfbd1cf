import Foundation

/// What interceptors learn about the request they see: which endpoint, which
/// attempt, which host.
public struct RequestContext: @unchecked Sendable {
    /// The request as the SDK described it.
    public let request: any BaseAPIRequest
    /// The host it is sent to.
    public let host: HostConfiguration
    /// 1 for the first send, 2 for the first retry or replay, and so on.
    public let attempt: Int
    /// A number that identifies the request across its attempts, unique in the process
    /// (requests without interceptors take none).
    public let requestID: Int

    private static let lastRequestID = Protected(0)

    /// The next process-wide request number (taken only by requests that interceptors see).
    static func nextRequestID() -> Int {
        lastRequestID.write { id -> Int in
            id += 1
            return id
        }
    }
}
