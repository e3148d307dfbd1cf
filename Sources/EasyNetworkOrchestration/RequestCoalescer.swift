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
final class RequestCoalescer: RequestPlugIn, @unchecked Sendable {
    // unchecked: `flights` and every flight's `var`s are read and written only under `lock`.
    /// One caller of a shared transfer (known by identity), with what it leaves with. A
    /// class: a struct brings value witnesses of its own into the binary.
    private final class Seat: Sendable {
        let completion: @Sendable (TransportOutcome) -> Void
        /// Hears of the shared transfer's bytes (its own timeout).
        let activity: any TransferActivity
        let request: URLRequest
        let flight: Flight

        init(completion: @escaping @Sendable (TransportOutcome) -> Void, activity: any TransferActivity, request: URLRequest, flight: Flight) {
            self.completion = completion
            self.activity = activity
            self.request = request
            self.flight = flight
        }

        /// The caller cancelled: it leaves at once with a cancellation, and the transfer is
        /// cancelled when it was the last seat.
        func leave() {
            let coalescer = flight.coalescer
            coalescer.lock.lock()
            var index = 0
            while index < flight.seats.count, flight.seats[index] !== self {
                index += 1
            }
            guard index < flight.seats.count else { return coalescer.lock.unlock() }
            flight.seats.remove(at: index)
            var cancelTask: TransportTask?
            if flight.seats.isEmpty {
                flight.cancelled = true
                coalescer.remove(flight)
                cancelTask = flight.task
            }
            coalescer.lock.unlock()
            cancelTask?.cancel()
            // Made by the core, where `URLError` is made already (its initializer is generic
            // over the code's type: four conformance lookups in any file that calls it).
            completion(TransportOutcome(request, failed: .cancelled))
        }
    }

    /// One shared transfer. It passes the transfer's activity on to every seat, each
    /// with its own timeout.
    private final class Flight: TransferActivity, @unchecked Sendable {
        // unchecked: its `var`s are read and written only under the coalescer's lock.
        /// The callers still seated, in the order they came (a few: an array, no dictionary).
        var seats: [Seat] = []
        var task: TransportTask?
        var cancelled = false
        /// What its requests share (``RequestCoalescer/key(for:)``).
        let key: String
        /// The coalescer, kept while the flight is in flight (it leaves the coalescer's
        /// table when it lands or its last seat leaves).
        let coalescer: RequestCoalescer

        init(key: String, coalescer: RequestCoalescer) {
            self.key = key
            self.coalescer = coalescer
        }

        func transferMoved() {
            coalescer.lock.lock()
            let seats = seats
            coalescer.lock.unlock()
            for seat in seats {
                seat.activity.transferMoved()
            }
        }

        /// The transfer ended: every seat still there gets its outcome.
        func land(_ outcome: TransportOutcome) {
            coalescer.lock.lock()
            coalescer.remove(self)
            let seats = seats
            self.seats = []
            coalescer.lock.unlock()
            for seat in seats {
                seat.completion(outcome)
            }
        }
    }

    private let lock = Lock()
    /// The flights in the air: as many as requests in flight at once (a queue's slots),
    /// so a plain array searched in order (no dictionary type of its own).
    private var flights: [Flight] = []

    /// Whether `request` may share a transfer: GET and HEAD only.
    static func canCoalesce(_ request: URLRequest) -> Bool {
        let method = request.httpMethod?.uppercased() ?? "GET"
        return (method == "GET" || method == "HEAD") && (request.httpBody?.isEmpty ?? true) && request.httpBodyStream == nil
    }

    /// What makes two requests identical: method, URL, and the `name:value` lines of the
    /// headers (names lowercased) in ascending order, by the core's insertion sort (a few
    /// headers; a `sorted(by:)` would compile the standard library's sort for its closure).
    static func key(for request: URLRequest) -> String {
        var lines: [String] = []
        if let fields = request.allHTTPHeaderFields {
            for (name, value) in fields {
                // Each line starts with its newline (the same order: a common prefix).
                SortedKeys.insert("\n" + name.lowercased() + ":" + value, into: &lines)
            }
        }
        var key = (request.httpMethod ?? "GET") + " " + (request.url?.absoluteString ?? "")
        for line in lines {
            key += line
        }
        return key
    }

    /// The plug-in's part: a GET or HEAD joins the transfer for an identical request in
    /// flight, or starts one through `next` (the flight hears of the transfer's activity
    /// and passes it on to every seat); any other request goes on alone.
    func send(
        _ request: URLRequest,
        activity: any TransferActivity,
        next: (URLRequest, any TransferActivity, @escaping @Sendable (TransportOutcome) -> Void) -> TransportTask?,
        arrived: @escaping @Sendable (TransportOutcome) -> Void
    ) -> TransportTask? {
        guard Self.canCoalesce(request) else { return next(request, activity, arrived) }
        let key = Self.key(for: request)
        lock.lock()
        var existing: Flight?
        for flight in flights where flight.key == key {
            existing = flight
            break
        }
        let flight = existing ?? Flight(key: key, coalescer: self)
        let seat = Seat(completion: arrived, activity: activity, request: request, flight: flight)
        flight.seats.append(seat)
        if existing == nil {
            flights.append(flight)
        }
        lock.unlock()
        // Each closure captures one reference: no context of its own.
        let handle = TransportTask { seat.leave() }
        guard existing == nil else { return handle }
        let task = next(request, flight) { flight.land($0) }
        lock.lock()
        flight.task = task
        let cancelNow = flight.cancelled
        lock.unlock()
        if cancelNow { task?.cancel() }
        return handle
    }

    /// Takes `flight` off the table, if it is still there; under `lock`.
    private func remove(_ flight: Flight) {
        for index in flights.indices where flights[index] === flight {
            flights.remove(at: index)
            return
        }
    }
}
