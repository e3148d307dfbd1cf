#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One attempt to deliver one entry, as an operation on the SDK's ``NetworkQueue``: the
/// stored request goes through the ordinary pipeline from its adapt stage (the token and
/// the host's interceptors adapt it, then transport, validation, metrics, logging), and
/// the outcome is reported once, also when the operation was cancelled before it ran.
final class DeliveryOperation: ServiceOperation, @unchecked Sendable {
    // unchecked: an Operation subclass; its own fields are immutable, and `report` keeps
    // its state under its own lock.
    private let request: StoredRequest
    private let urlRequest: URLRequest
    private let report: DeliveryReport

    init(request: StoredRequest, urlRequest: URLRequest, host: HostConfiguration, done: @escaping @Sendable (DeliveryOutcome) -> Void) {
        self.request = request
        self.urlRequest = urlRequest
        let report = DeliveryReport(done)
        self.report = report
        super.init(configuration: host)
        // Runs when the operation finished, however: one cancelled before it ran ends here.
        completionBlock = { report.fire(.notSent) }
    }

    override func execute() {
        let sink = DeliverySink { [self] error in
            report.fire(error.map(DeliveryOutcome.failed) ?? .delivered)
            finish()
        }
        service.start(request, built: urlRequest, sink: sink)
    }
}

/// How one attempt ended.
enum DeliveryOutcome: Sendable {
    case delivered
    case failed(NetworkError)
    /// Cancelled before or while it was sent (a queue's `cancelAllOperations()`): not an attempt.
    case notSent
}

/// Calls its closure once, with the first outcome it is given.
final class DeliveryReport: @unchecked Sendable {
    // unchecked: `done` is taken once under `lock`.
    private let lock = Lock()
    private var done: (@Sendable (DeliveryOutcome) -> Void)?

    init(_ done: @escaping @Sendable (DeliveryOutcome) -> Void) {
        self.done = done
    }

    func fire(_ outcome: DeliveryOutcome) {
        lock.lock()
        let taken = done
        done = nil
        lock.unlock()
        taken?(outcome)
    }
}

/// The typed end of a delivery's exchange: any answer the host accepts delivers the
/// entry; the host's envelope, when the body has one, may still say the call failed.
final class DeliverySink: ExchangeSink {
    private let completion: @Sendable (NetworkError?) -> Void

    init(completion: @escaping @Sendable (NetworkError?) -> Void) {
        self.completion = completion
    }

    func map(_ response: NetworkResponse, lock: Lock) -> NetworkError? {
        guard response.envelope != nil, !response.data.isEmpty else { return nil }
        do {
            try response.validateEnvelope()
            return nil
        } catch let error as NetworkError where error.kind == .business {
            return error  // the server said no, in its envelope
        } catch {
            return nil  // accepted (2xx) with a body that is not the envelope's JSON
        }
    }

    var wantsProvisional: Bool { false }

    var mapsInline: Bool { false }

    func deliverProvisional(_ response: NetworkResponse, on queue: DispatchQueue, lock: Lock) {}

    func deliver(_ error: NetworkError?, metrics: RequestMetrics, lock: Lock) {
        completion(error)
    }
}
