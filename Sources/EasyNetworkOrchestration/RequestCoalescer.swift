#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Shares one network request among identical GET/HEAD requests in flight.
///
/// Requests are identical when method, URL and every header (after interceptors and
/// the token) are equal. The first starts the transfer; the others take a seat on it
/// and each gets the same outcome through its own completion. A seat that is cancelled
/// leaves at once with a cancellation; the transfer itself is cancelled only when its
/// last seat leaves.
final class RequestCoalescer: @unchecked Sendable {
    // unchecked: `flights`, `nextSeat` and every flight's `var`s are read and written
    // only under `lock`.
    /// One shared transfer. It passes the transfer's activity on to every seat, each
    /// with its own timeout.
    private final class Flight: TransferActivity, @unchecked Sendable {
        // unchecked: its `var`s are read and written only under the coalescer's lock.
        var seats: [Int: @Sendable (TransportOutcome) -> Void] = [:]
        var activities: [Int: any TransferActivity] = [:]
        var task: TransportTask?
        var cancelled = false
        /// The coalescer, kept while the flight is in flight (it leaves the coalescer's
        /// table when it lands or its last seat leaves).
        let coalescer: RequestCoalescer

        init(coalescer: RequestCoalescer) {
            self.coalescer = coalescer
        }

        func transferMoved() {
            coalescer.lock.lock()
            let listeners = Array(activities.values)
            coalescer.lock.unlock()
            listeners.forEach { $0.transferMoved() }
        }
    }

    private let lock = Lock()
    private var flights: [String: Flight] = [:]
    private var nextSeat = 0

    /// Whether `request` may share a transfer: GET and HEAD only.
    static func canCoalesce(_ request: URLRequest) -> Bool {
        let method = request.httpMethod?.uppercased() ?? "GET"
        return (method == "GET" || method == "HEAD") && (request.httpBody?.isEmpty ?? true) && request.httpBodyStream == nil
    }

    /// What makes two requests identical.
    static func key(for request: URLRequest) -> String {
        var key = (request.httpMethod ?? "GET") + " " + (request.url?.absoluteString ?? "")
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            key += "\n" + name.lowercased() + ":" + value
        }
        return key
    }

    /// Joins the transfer for an identical request in flight, or starts one with `start`
    /// (which reports the transfer's activity to the flight). `activity` hears of the
    /// shared transfer's bytes.
    func dataTask(
        with request: URLRequest,
        activity: (any TransferActivity)? = nil,
        start: (_ activity: any TransferActivity, _ completion: @escaping @Sendable (TransportOutcome) -> Void) -> TransportTask?,
        completion: @escaping @Sendable (TransportOutcome) -> Void
    ) -> TransportTask? {
        let key = Self.key(for: request)
        lock.lock()
        nextSeat += 1
        let seat = nextSeat
        let existing = flights[key]
        let flight = existing ?? Flight(coalescer: self)
        flight.seats[seat] = completion
        flight.activities[seat] = activity
        if existing == nil {
            flights[key] = flight
        }
        lock.unlock()
        let handle = TransportTask { [weak self] in self?.leave(seat: seat, of: flight, key: key, request: request) }
        guard existing == nil else { return handle }
        let task = start(flight) { [weak self] outcome in
            self?.land(flight, key: key, outcome: outcome)
        }
        lock.lock()
        flight.task = task
        let cancelNow = flight.cancelled
        lock.unlock()
        if cancelNow { task?.cancel() }
        return handle
    }

    private func leave(seat: Int, of flight: Flight, key: String, request: URLRequest) {
        lock.lock()
        guard let completion = flight.seats.removeValue(forKey: seat) else { return lock.unlock() }
        flight.activities.removeValue(forKey: seat)
        var cancelTask: TransportTask?
        if flight.seats.isEmpty {
            flight.cancelled = true
            if flights[key] === flight {
                flights.removeValue(forKey: key)
            }
            cancelTask = flight.task
        }
        lock.unlock()
        cancelTask?.cancel()
        completion(TransportOutcome(request: request, error: URLError(.cancelled)))
    }

    private func land(_ flight: Flight, key: String, outcome: TransportOutcome) {
        lock.lock()
        if flights[key] === flight {
            flights.removeValue(forKey: key)
        }
        let seats = Array(flight.seats.values)
        flight.seats.removeAll()
        flight.activities.removeAll()
        lock.unlock()
        seats.forEach { $0(outcome) }
    }
}
