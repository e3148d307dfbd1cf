#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One attempt to deliver one entry, as an operation on the SDK's ``NetworkQueue``: the
/// stored request, with the host's current default headers it lacks, goes through the
/// ordinary pipeline from its adapt stage (the token and the host's interceptors adapt it,
/// then transport, validation, metrics, logging), and the outcome is reported once, also
/// when the operation was cancelled before it ran.
///
/// The operation is also what the pipeline sees of the entry (the request: its stored URL
/// and method, its wish for the host's token, the outbox's rules; the stored `URLRequest`
/// goes in as built, so nothing is built again) and the typed end of its exchange (the
/// sink): one object per attempt.
///
/// Generic only for its size, used as `DeliveryOperation<Void>`: the metadata of a
/// non-generic subclass of `ServiceOperation` is stored whole in the binary, with the
/// inherited vtable of about 150 entries as absolute pointers, each a load-time relocation
/// (3.8 KB of the outbox's footprint); a generic class's metadata is made at run time, once.
final class DeliveryOperation<Unused>: ServiceOperation, BaseAPIRequest, ExchangeSink, @unchecked Sendable {
    // unchecked: an Operation subclass; `outbox` is taken once under the operation's lock
    // (`lockState`), the other fields are set in init and never change.
    /// The entry (its stored request, its wish for the host's token).
    private let record: EntryRecord
    let method: NetworkService.Method
    /// The size of the entry's file, handed back with the outcome.
    private let size: Int
    /// Told the outcome once (`nil` when delivered, a cancellation when the attempt was not
    /// made, else the failure), then cleared. Weak: an outbox let go meanwhile records
    /// nothing, and its entry goes again later.
    @exclusivity(unchecked) private weak var outbox: Outbox?

    /// The attempt of `record` (a file of `size` bytes) for `outbox`, or `nil` for a method
    /// the library does not send.
    init?(record: EntryRecord, size: Int, outbox: Outbox) {
        guard let method = NetworkService.Method(rawValue: record.method) else { return nil }
        self.record = record
        self.method = method
        self.size = size
        self.outbox = outbox
        super.init(configuration: outbox.host)
        // Cancelled before it ran, it still executes once, off the queue, on its cancelled
        // service (ServiceOperation's rule): the exchange delivers the cancellation here.
    }

    /// Sends the stored request with the host's default headers of this moment added, those
    /// it does not carry: the ones never stored (`X-API-Key`, `Authorization`, `Cookie`, …)
    /// and any the host gained since. A stored header wins, as a request's own header wins
    /// over a default. Refused defaults (CR, LF or NUL in a value) fail the attempt as they
    /// fail an ordinary request, rather than it going out without them.
    override func execute() {
        let defaults = configuration.defaultHeaders
        // (Cancelled before it ran: the cancellation is the outcome, whatever the defaults.)
        if !isCancelled, let refused = HeaderFieldCheck.failure(in: defaults, url: record.url, source: "the host's default headers") {
            report(refused)
            return finish()
        }
        // The host's timeout as URLSession's backstop (the exchange keeps the exact deadline).
        let attempt = record.urlRequest(timeout: (configuration.timeout + 1).rounded(.up), defaults: defaults)
        service.start(self, sink: self, uploadProgress: nil, transfer: nil, built: attempt)
    }

    /// Hands the first outcome to the outbox.
    @_optimize(size)
    private func report(_ error: NetworkError?) {
        lockState()
        let taken = outbox
        outbox = nil
        unlockState()
        taken?.attemptEnded(record, size: size, error)
    }

    // MARK: The request

    // `@inline(__always)` here and on `map` and `deliver`: the protocol's witness holds the
    // body, no function of its own beside it.
    @inline(__always) var api: String { record.url.path }
    @inline(__always) var absoluteURL: URL? { record.url }
    @inline(__always) var requiresAuthentication: Bool { record.requiresAuthentication }
    /// The outbox decides retries itself (and keeps them across launches); interceptors,
    /// the token's refresh and replay among them, still retry within an attempt.
    /// (`RetryPolicy.none` with empty code sets: one attempt retries nothing, and the two
    /// default sets would be built here, 0.5 KB.)
    var retryPolicy: RetryPolicy? { RetryPolicy(maxAttempts: 1, retryableStatusCodes: [], retryableURLErrorCodes: []) }
    /// Failures reach the outbox's dead letters, not the host's error handler.
    var suppressesErrorHandler: Bool { true }
    var coalescesIdenticalRequests: Bool? { false }
    var cachePolicy: CachePolicy? { .networkOnly }

    // MARK: The sink

    /// Any answer the host accepts delivers the entry; the host's envelope, when the body
    /// has one, may still say the call failed.
    @inline(__always) func map(_ response: NetworkResponse, lock: Lock) -> NetworkError? {
        // (No envelope: `validateEnvelope()` does nothing. An empty body has none to judge.)
        guard !response.data.isEmpty else { return nil }
        do {
            try response.validateEnvelope()
            return nil
        } catch let error as NetworkError where error.kind == .business {
            return error  // the server said no, in its envelope
        } catch {
            return nil  // accepted (2xx) with a body that is not the envelope's JSON
        }
    }

    var mapsInline: Bool { false }

    func deliverProvisional(_ response: NetworkResponse, on queue: DispatchQueue, lock: Lock) {}

    @inline(__always) func deliver(_ error: NetworkError?, metrics: RequestMetrics, lock: Lock) {
        report(error)
        finish()
    }
}
