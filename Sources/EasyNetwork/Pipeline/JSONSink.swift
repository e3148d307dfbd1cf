import Dispatch

/// The sink of the seed's ``EasyNetworkService/request(_:success:failure:)``: the
/// library's own JSON parse and the two closures, without the generic ``TypedSink``
/// (no `Result` to build, no generic metadata to look up, one allocation per request).
final class JSONSink: ExchangeSink, @unchecked Sendable {
    // unchecked: `value` and `mapped` are written and taken only under the lock the
    // exchange passes in; the closures are immutable and Sendable.
    private let success: (@Sendable (Any?) -> Void)?
    private let failure: (@Sendable (NetworkError) -> Void)?
    @exclusivity(unchecked) private var value: Any?
    @exclusivity(unchecked) private var mapped = false

    init(success: (@Sendable (Any?) -> Void)?, failure: (@Sendable (NetworkError) -> Void)?) {
        self.success = success
        self.failure = failure
    }

    /// The library's own small parse: it may run on the delegate queue.
    var mapsInline: Bool { true }

    func map(_ response: NetworkResponse, lock: Lock) -> NetworkError? {
        let json: Any?
        do {
            json = try response.jsonObject()
        } catch {
            return .decoding(error, response: response)
        }
        lock.lock()
        (value, mapped) = (json, true)
        lock.unlock()
        return nil
    }

    func deliverProvisional(_ response: NetworkResponse, on queue: DispatchQueue, lock: Lock) {}

    func deliver(_ error: NetworkError?, metrics: RequestMetrics, lock: Lock) {
        lock.lock()
        let (json, wasMapped) = (value, mapped)
        (value, mapped) = (nil, false)
        lock.unlock()
        if let error {
            failure?(error)
        } else if wasMapped {
            success?(json)
        } else {
            failure?(NetworkError.unmapped())
        }
    }
}
