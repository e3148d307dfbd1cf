#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one attempt's outcome says about the health of its host: the one place that
/// sorts outcomes for the budget and the breaker. Plain integers, not an enum with
/// payloads: a signal is copied and compared as bytes.
struct HostSignal: Sendable {
    /// The failure, when it is one (`success` and `none` have none).
    let failure: Failure?
    /// Whether it is an answer (`success`, or a failure): `none` is neither.
    private let answered: Bool

    /// An answer the server gave without trouble (any status below 500 but 408 and 429).
    static let success = HostSignal(failure: nil, answered: true)
    /// Nothing about the server: a cancellation, a device that is offline, an error of the device.
    static let none = HostSignal(failure: nil, answered: false)

    /// A failure the server may have caused.
    static func failure(_ failure: Failure) -> HostSignal {
        HostSignal(failure: failure, answered: true)
    }

    /// Whether it is ``success``.
    var isSuccess: Bool { answered && failure == nil }

    private init(failure: Failure?, answered: Bool) {
        self.failure = failure
        self.answered = answered
    }

    /// A failure, by its status or transport error.
    struct Failure: Sendable {
        /// The status, or `nil` for a transport failure.
        let status: Int?
        /// The transport error's code, or `nil` for a status.
        let transportCode: URLError.Code?

        static func status(_ status: Int) -> Failure {
            Failure(status: status, transportCode: nil)
        }

        static func transport(_ code: URLError.Code) -> Failure {
            Failure(status: nil, transportCode: code)
        }

        /// Whether it counts for the breaker: 5xx answers and transport failures (408 and
        /// 429 only drain the budget: the server is answering).
        var isOutage: Bool {
            status.map { $0 >= 500 } ?? true
        }
    }

    /// What `outcome` says: its response's status, else its error.
    init(_ outcome: TransportOutcome) {
        let (response, error) = outcome.received
        guard let error else {
            self = response.map { Self(status: $0.statusCode) } ?? .none
            return
        }
        // A streamed transfer typed its own failure (a download's status).
        let typed = error as? NetworkError
        if let status = typed?.statusCode {
            self.init(status: status)
            return
        }
        guard let code = (typed?.urlError ?? error as? URLError)?.code else {
            self = .none
            return
        }
        self.init(transport: code)
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
