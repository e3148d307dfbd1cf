import Foundation

/// What interceptors learn about the request they see: which endpoint, which
/// attempt, which host.
public struct RequestContext: Sendable {
    // One reference, not five fields: no value witnesses to copy them.
    private let box: Box

    /// The request as the SDK described it.
    public var request: any BaseAPIRequest { box.request }
    /// The host it is sent to.
    public var host: HostConfiguration { box.host }
    /// 1 for the first send, 2 for the first retry or replay, and so on.
    public var attempt: Int { box.attempt }
    /// A number that identifies the request across its attempts, unique in the process
    /// (requests without interceptors take none).
    public var requestID: Int { box.requestID }

    init(request: any BaseAPIRequest, host: HostConfiguration, attempt: Int, requestID: Int, ledger: RequestExchange?) {
        box = Box(request: request, host: host, attempt: attempt, requestID: requestID, ledger: ledger)
    }

    private final class Box: @unchecked Sendable {
        // unchecked: `request` is an `any BaseAPIRequest`, an immutable description the
        // library only reads (BaseAPIRequest is not Sendable for source compatibility).
        let request: any BaseAPIRequest
        let host: HostConfiguration
        let attempt: Int, requestID: Int
        /// Where the request's retry decisions are counted.
        let ledger: RequestExchange?

        init(request: any BaseAPIRequest, host: HostConfiguration, attempt: Int, requestID: Int, ledger: RequestExchange?) {
            self.request = request
            self.host = host
            self.attempt = attempt
            self.requestID = requestID
            self.ledger = ledger
        }
    }

    /// How many ``RetryDecision/retry(after:)`` decisions interceptors of the type of
    /// `interceptor` made for this request so far (a token refresh replays once).
    public func retryCount(decidedBy interceptor: any RequestInterceptor) -> Int {
        box.ledger?.retryCount(decidedBy: ObjectIdentifier(type(of: interceptor))) ?? 0
    }

    private static let idLock = Lock()
    // Read and written only under `idLock`.
    nonisolated(unsafe) private static var lastRequestID = 0

    /// The next process-wide request number (taken only by requests that interceptors see).
    static func nextRequestID() -> Int {
        idLock.lock()
        defer { idLock.unlock() }
        lastRequestID += 1
        return lastRequestID
    }
}
