import EasyNetwork
import Foundation

/// Starts one request and calls back on the main queue with whether it succeeded.
typealias RequestPath = @Sendable (@escaping @Sendable (Bool) -> Void) -> Void

/// The paths `--profile` can run, each one step between raw URLSession and the full
/// EasyNetwork path, so the cost of each step can be measured on its own.
enum ProfilePaths {
    static func all(host: HostConfiguration, raw: RawClient, twin: RawClient, delegated: DelegateClient, queue: NetworkQueue, floorQueue: OperationQueue, referenceQueue: OperationQueue) -> [String: RequestPath] {
        // The benchmark's path: the ServiceOperation on a NetworkQueue.
        let seed: RequestPath = { done in queue.addOperation(BenchOperation(configuration: host, onDone: done)) }
        // The typed request with async/await, awaited on the main actor: `queue.send` runs
        // a RequestOperation on the same NetworkQueue; its decoder is the same JSON parse.
        let async: RequestPath = { done in
            Task { @MainActor in
                let ok = (try? await queue.send(BenchJSON(), configuration: host)) ?? false
                done(ok)
            }
        }
        let alternation = Alternation()
        return [
            // Raw URLSession, started on the main queue (the benchmark's baseline).
            "raw": { done in raw.get(done) },
            // The same code on a second session: how far two identical paths drift apart.
            "raw-twin": { done in twin.get(done) },
            // Raw URLSession started from a global-queue thread: the cost of one hop.
            "raw-hop": { done in DispatchQueue.global().async { raw.get(done) } },
            // The floor: raw URLSession inside a minimal asynchronous Operation on an OperationQueue.
            "floor": { done in floorQueue.addOperation(FloorOperation(raw: raw, onDone: done)) },
            // The same floor around a delegate-driven task (no completion handler: response,
            // body and end reach a session delegate), as a client that hears every byte needs.
            "floor-delegate": { done in floorQueue.addOperation(FloorOperation(delegated: delegated, onDone: done)) },
            // Raw URLSession inside a BlockOperation on an OperationQueue (the operation ends
            // when the task starts, not when it completes: not a floor for asynchronous work).
            "operation": { done in referenceQueue.addOperation { raw.get(done) } },
            // EasyNetworkService called on the main queue: no operation, no hop.
            "service": { done in request(host, done) },
            // The same from a global-queue thread.
            "service-hop": { done in DispatchQueue.global().async { request(host, done) } },
            // The benchmark's ServiceOperation, started in place on the main queue.
            "operation-inline": { done in kept(host: host, done).start() },
            // The same operation started on a global-queue thread, with no OperationQueue.
            "operation-dispatch": { done in
                let operation = kept(host: host, done)
                DispatchQueue.global().async { operation.start() }
            },
            // The floor awaited as the async path awaits (not a floor of its own: what the
            // task's start, its continuation and its resumption on the main actor add). The
            // continuation resumes from the task's completion handler, where the floor would
            // hop to the main queue.
            "floor-async": { done in
                Task { @MainActor in
                    let ok = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                        floorQueue.addOperation(FloorOperation(raw: raw, inPlace: true) { continuation.resume(returning: $0) })
                    }
                    done(ok)
                }
            },
            "easynetwork": seed,
            "async": async,
            // Both EasyNetwork paths in turn (every request starts on the main queue).
            "mixed": { done in alternation.flip() ? seed(done) : async(done) },
        ]
    }

    /// The typed twin of ``BenchOperation/Request``: the body parsed with `JSONSerialization`.
    struct BenchJSON: APIRequest {
        typealias Response = Bool
        var api: String { "/bench" }
        var responseDecoder: ResponseDecoder<Bool> { ResponseDecoder { try $0.jsonObject() != nil } }
    }

    private static func request(_ host: HostConfiguration, _ done: @escaping @Sendable (Bool) -> Void) {
        EasyNetworkService(host).request(BenchOperation.Request(), success: { done($0 != nil) }, failure: { _ in done(false) })
    }

    /// An operation kept alive until it reports (no queue holds it).
    private static func kept(host: HostConfiguration, _ done: @escaping @Sendable (Bool) -> Void) -> BenchOperation {
        let holder = Holder()
        let operation = BenchOperation(configuration: host) { ok in
            done(ok)
            holder.operation = nil
        }
        holder.operation = operation
        return operation
    }

    private final class Holder: @unchecked Sendable {
        var operation: BenchOperation?
    }
}
