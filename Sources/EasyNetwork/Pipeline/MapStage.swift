/// The one place user mapping runs (the caller's transform, mapper or `Decodable`):
/// on the ``ResponseStage`` queue for a response from the network, on the sending
/// thread for a stored one, never on the session's delegate queue (only the library's own
/// JSON parse of a small body runs there, see ``ResponseStage``). The host's envelope
/// is judged here too, by the mapping itself (``NetworkResponse/jsonObject()``,
/// ``NetworkResponse/decode(_:decoder:)``): a business failure is a mapping error, and
/// goes to the ``RetryStage`` like any failure. A response that mapped is offered to the
/// plug-ins (the cache); one that did not is never stored.
package enum MapStage {
    /// Maps `response` into `sink` (the value kept under `lock`); returns the error when
    /// the mapping threw.
    package static func run(_ response: NetworkResponse, sink: any ExchangeSink, lock: Lock, plugIns: [any RequestPlugIn]) -> NetworkError? {
        if let error = sink.map(response, lock: lock) {
            return error
        }
        if !plugIns.isEmpty {
            let credential = plugIns.credential
            plugIns.forEach { $0.didMap(response, credential: credential) }
        }
        return nil
    }
}
