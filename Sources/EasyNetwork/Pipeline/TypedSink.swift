import Dispatch

/// The one generic part of a request: its mapping, the value it made and its
/// completion. Small on purpose: every `Output` a program uses specializes it.
final class TypedSink<Output>: ExchangeSink, @unchecked Sendable {
    // unchecked: `value` is written and taken only under the lock the exchange passes
    // in; the rest is immutable and Sendable.
    private let transform: @Sendable (NetworkResponse) throws -> Output
    private let cachedValue: (@Sendable (Output) -> Void)?
    private let completion: @Sendable (Result<Output, NetworkError>, RequestMetrics) -> Void
    let deliversInPlace: Bool
    @exclusivity(unchecked) private var value: Output?

    @inline(never)  // one copy, not another inside the allocating entry
    init(
        transform: @escaping @Sendable (NetworkResponse) throws -> Output,
        cachedValue: (@Sendable (Output) -> Void)?,
        completion: @escaping @Sendable (Result<Output, NetworkError>, RequestMetrics) -> Void,
        deliversInPlace: Bool = false
    ) {
        self.transform = transform
        self.cachedValue = cachedValue
        self.completion = completion
        self.deliversInPlace = deliversInPlace
    }

    func map(_ response: NetworkResponse, lock: Lock) -> NetworkError? {
        let mapped: Output
        do {
            mapped = try transform(response)
        } catch {
            return .decoding(error, response: response)
        }
        lock.lock()
        value = mapped
        lock.unlock()
        return nil
    }

    func deliverProvisional(_ response: NetworkResponse, on queue: DispatchQueue, lock: Lock) {
        guard cachedValue != nil else { return }
        // Handed over once, to the one closure that runs on `queue`: nothing else touches it.
        // No `try?`: an optional of `Output` would need its metadata looked up.
        do {
            nonisolated(unsafe) let handed = try transform(response)
            QueueHop.async(queue) { [self] in cachedValue?(handed) }
        } catch {}
    }

    func deliver(_ error: NetworkError?, metrics: RequestMetrics, lock: Lock) {
        lock.lock()
        let taken = value.take()
        lock.unlock()
        let result: Result<Output, NetworkError>
        if let error {
            result = .failure(error)
        } else if let taken {
            result = .success(taken)
        } else {
            result = .failure(NetworkError.unmapped())
        }
        completion(result, metrics)
    }
}
