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
    /// One shared transfer; its fields are touched only under the coalescer's lock.
    /// It passes the transfer's activity on to every seat, each with its own timeout.
    private final class Flight: TransferActivity, @unchecked Sendable {  // its vars are read and written only under the coalescer's lock
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
            coalescer.state.read { _ in Array(activities.values) }.forEach { $0.transferMoved() }
        }
    }

    private struct State {
        var flights: [String: Flight] = [:]
        var nextSeat = 0
    }

    private let state = Protected(State())

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
        let (seat, flight, isLeader): (Int, Flight, Bool) = state.write { state in
            state.nextSeat += 1
            let existing = state.flights[key]
            let flight = existing ?? Flight(coalescer: self)
            flight.seats[state.nextSeat] = completion
            flight.activities[state.nextSeat] = activity
            if existing == nil {
                state.flights[key] = flight
            }
            return (state.nextSeat, flight, existing == nil)
        }
        let handle = TransportTask { [weak self] in self?.leave(seat: seat, of: flight, key: key, request: request) }
        guard isLeader else { return handle }
        let task = start(flight) { [weak self] outcome in
            self?.land(flight, key: key, outcome: outcome)
        }
        let cancelNow: Bool = state.write { _ in
            flight.task = task
            return flight.cancelled
        }
        if cancelNow { task?.cancel() }
        return handle
    }

    private func leave(seat: Int, of flight: Flight, key: String, request: URLRequest) {
        let (completion, cancelTask): ((@Sendable (TransportOutcome) -> Void)?, TransportTask?) = state.write { state in
            guard let completion = flight.seats.removeValue(forKey: seat) else { return (nil, nil) }
            flight.activities.removeValue(forKey: seat)
            guard flight.seats.isEmpty else { return (completion, nil) }
            flight.cancelled = true
            if state.flights[key] === flight {
                state.flights.removeValue(forKey: key)
            }
            return (completion, flight.task)
        }
        cancelTask?.cancel()
        completion?(TransportOutcome(request: request, error: URLError(.cancelled)))
    }

    private func land(_ flight: Flight, key: String, outcome: TransportOutcome) {
        let seats: [@Sendable (TransportOutcome) -> Void] = state.write { state in
            if state.flights[key] === flight {
                state.flights.removeValue(forKey: key)
            }
            defer {
                flight.seats.removeAll()
                flight.activities.removeAll()
            }
            return Array(flight.seats.values)
        }
        seats.forEach { $0(outcome) }
    }
}
