#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A failure the server may have caused: its status, or its transport error's code. A
/// tuple, not a type: no metadata or value witnesses of its own.
typealias HostFailure = (status: Int?, code: URLError.Code?)

/// What one attempt's outcome says about the health of its host: an answer (`answered`:
/// a success, or a `failure`), or nothing about the server (a cancellation, a device that
/// is offline, an error of the device: not answered, no failure).
typealias HostSignal = (answered: Bool, failure: HostFailure?)

/// The one place that sorts outcomes for the budget and the breaker.
extension RetryEngine {
    /// What `outcome` says: its response's status, else its error.
    static func signal(of outcome: TransportOutcome) -> HostSignal {
        let (response, error) = outcome.received
        guard let error else {
            return response.map { signal(status: $0.statusCode) } ?? (false, nil)
        }
        // A streamed transfer typed its own failure (a download's status).
        let typed = error as? NetworkError
        if let status = typed?.statusCode {
            return signal(status: status)
        }
        guard let code = (typed?.urlError ?? error as? URLError)?.code else { return (false, nil) }
        return signal(transport: code)
    }

    /// Whether `failure` counts for the breaker: 5xx answers and transport failures (408
    /// and 429 only drain the budget: the server is answering).
    static func isOutage(_ failure: HostFailure) -> Bool {
        failure.status.map { $0 >= 500 } ?? true
    }

    /// A status: a failure when 5xx, 408 or 429, else a success.
    static func signal(status: Int) -> HostSignal {
        (true, status >= 500 || status == 408 || status == 429 ? (status, nil) : nil)
    }

    /// A transport error: a failure, but for a device that is offline, a cancellation or
    /// an error of the device (nothing about the server).
    static func signal(transport code: URLError.Code) -> HostSignal {
        switch code {
        case .cancelled, .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff, .callIsActive,
             .cannotFindHost, .dnsLookupFailed, .userCancelledAuthentication, .badURL, .unsupportedURL:
            return (false, nil)
        default:
            return (true, (nil, code))
        }
    }
}
