#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one attempt's outcome says about the health of its host: the one place that
/// sorts outcomes for the budget and the breaker.
enum HostSignal: Equatable, Sendable {
    /// An answer the server gave without trouble (any status below 500 but 408 and 429).
    case success
    /// A failure the server may have caused.
    case failure(Failure)
    /// Nothing about the server: a cancellation, a device that is offline, an error of the device.
    case none

    /// A failure, by its status or transport error.
    enum Failure: Equatable, Sendable {
        case status(Int)
        case transport(URLError.Code)

        /// Whether it counts for the breaker: 5xx answers and transport failures (408 and
        /// 429 only drain the budget: the server is answering).
        var isOutage: Bool {
            if case .status(let status) = self { return status >= 500 }
            return true
        }
    }

    /// What `outcome` says: its response's status, else its error.
    init(_ outcome: TransportOutcome) {
        let (response, error) = outcome.received
        if let error {
            // A streamed transfer typed its own failure (a download's status).
            if let typed = error as? NetworkError {
                if let status = typed.statusCode {
                    self = Self(status: status)
                } else {
                    self = typed.urlError.map { Self(transport: $0.code) } ?? .none
                }
                return
            }
            self = (error as? URLError).map { Self(transport: $0.code) } ?? .none
            return
        }
        self = response.map { Self(status: $0.statusCode) } ?? .none
    }

    init(status: Int) {
        self = status >= 500 || status == 408 || status == 429 ? .failure(.status(status)) : .success
    }

    init(transport code: URLError.Code) {
        switch code {
        case .cancelled, .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff, .callIsActive,
             .cannotFindHost, .dnsLookupFailed, .userCancelledAuthentication, .badURL, .unsupportedURL:
            self = .none
        default:
            self = .failure(.transport(code))
        }
    }
}
