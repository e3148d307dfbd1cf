import EasyNetwork
import Foundation

/// `--bulk-cancel [N] [ROUNDS]`: N operations queued on a suspended queue, all cancelled
/// at once, then the queue resumed; times the drain. Three paths, in turned order each
/// round: plain `BlockOperation`s on an `OperationQueue` (until the queue is empty), a
/// minimal asynchronous `Operation` that wraps nothing (the same), and `RequestOperation`s
/// on a `NetworkQueue` (until the queue is empty and every cancellation callback ran on
/// the main queue).
enum BulkCancelBenchmark {
    static func run(count: Int, rounds: Int) {
        print("bulk cancel: \(count) queued operations cancelled at once, \(rounds) rounds")
        // Nothing is sent: every operation is cancelled before it starts.
        let host = HostConfiguration(baseURL: URL(string: "http://127.0.0.1:9") ?? URL(fileURLWithPath: "/"))
        let paths: [(label: String, drain: () -> Double)] = [
            ("BlockOperation", { drainPlain(count: count) }),
            ("minimal async Operation", { drainMinimal(count: count) }),
            ("RequestOperation", { drainRequestOperations(count: count, host: host) }),
        ]
        // BULK_CANCEL_ONLY=2 (an index into `paths`) runs that path alone, for a profiler.
        let only = ProcessInfo.processInfo.environment["BULK_CANCEL_ONLY"].flatMap { Int($0) }
        var times = Array(repeating: [Double](), count: paths.count)
        for round in 0..<rounds {
            var line = [Double](repeating: 0, count: paths.count)
            for step in 0..<paths.count {
                let index = (step + round) % paths.count
                if let only, only != index { continue }
                line[index] = paths[index].drain()
            }
            for index in line.indices {
                times[index].append(line[index])
            }
            print(report("round \(round + 1)", line, labels: paths.map(\.label)))
        }
        print(report("median", times.map(median), labels: paths.map(\.label)) + "  (target: ours ≤ 2x plain)")
    }

    private static func report(_ title: String, _ seconds: [Double], labels: [String]) -> String {
        var parts = zip(labels, seconds).map { String(format: "%@ %.3f s", $0, $1) }
        if seconds.count == 3, seconds[0] > 0, seconds[1] > 0 {
            parts.append(String(format: "ours/BlockOperation %.2f  ours/minimal %.2f",
                                seconds[2] / seconds[0], seconds[2] / seconds[1]))
        }
        return title + ": " + parts.joined(separator: "  ")
    }

    /// Seconds from cancelling `count` queued `BlockOperation`s until the queue is empty.
    private static func drainPlain(count: Int) -> Double {
        drain((0..<count).map { _ in BlockOperation {} })
    }

    /// Seconds from cancelling `count` queued ``MinimalAsyncOperation``s until the queue is empty.
    private static func drainMinimal(count: Int) -> Double {
        drain((0..<count).map { _ in MinimalAsyncOperation() })
    }

    private static func drain(_ operations: [Operation]) -> Double {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = NetworkQueue.defaultMaxConcurrentOperationCount
        queue.isSuspended = true
        queue.addOperations(operations, waitUntilFinished: false)
        let cpu = cpuSeconds()
        let began = DispatchTime.now().uptimeNanoseconds
        queue.cancelAllOperations()
        let cancelled = DispatchTime.now().uptimeNanoseconds
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        reportCPU(cpuSeconds() - cpu, phases: [cancelled - began, DispatchTime.now().uptimeNanoseconds - cancelled])
        return Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
    }

    /// Seconds from cancelling `count` queued `RequestOperation`s until every one's
    /// completion ran on the main queue and the queue is empty.
    private static func drainRequestOperations(count: Int, host: HostConfiguration) -> Double {
        let queue = NetworkQueue()
        queue.isSuspended = true
        let delivered = DispatchSemaphore(value: 0)
        let tally = Tally(target: count)
        var operations: [RequestOperation<Data>] = []
        operations.reserveCapacity(count)
        for _ in 0..<count {
            let operation = RequestOperation(request: BulkRequest(), configuration: host, responseDecoder: .data)
            operation.completion = { result in
                if case .failure(let error) = result, error.isCancelled {} else { tally.failures += 1 }
                if tally.add() { delivered.signal() }
            }
            operations.append(operation)
        }
        queue.addOperations(operations, waitUntilFinished: false)
        operations = []
        let cpu = cpuSeconds()
        let began = DispatchTime.now().uptimeNanoseconds
        queue.cancelAllOperations()
        let cancelled = DispatchTime.now().uptimeNanoseconds
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        let drained = DispatchTime.now().uptimeNanoseconds
        delivered.wait()
        reportCPU(cpuSeconds() - cpu, phases: [cancelled - began, drained - cancelled, DispatchTime.now().uptimeNanoseconds - drained])
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
        if tally.failures > 0 {
            FileHandle.standardError.write(Data("warning: \(tally.failures) completions were not cancellations\n".utf8))
        }
        return seconds
    }
}

/// The least an asynchronous `Operation` needs: a lock, two flags and KVO for the keys
/// `OperationQueue` watches. Cancelled before it starts, it finishes at once.
private final class MinimalAsyncOperation: Operation, @unchecked Sendable {
    // Both flags are read and written only under `lock`.
    private let lock = NSLock()
    private var executing = false
    private var finished = false

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { executing } }
    override var isFinished: Bool { lock.withLock { finished } }

    override func start() {
        if isCancelled {
            willChangeValue(forKey: "isFinished")
            lock.withLock { finished = true }
            didChangeValue(forKey: "isFinished")
            return
        }
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
        // Wraps nothing: done at once.
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        lock.withLock { executing = false; finished = true }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}

/// A request that is never sent.
private struct BulkRequest: BaseAPIRequest {
    var api: String { "/never" }
    var method: NetworkService.Method { .get }
    var query: NetworkService.QueryType { .path }
    var params: [String: Any]? { nil }
    var headers: [String: String]? { nil }
}

/// Counts completions on the main queue.
private final class Tally: @unchecked Sendable {
    // Touched only on the main queue.
    private var count = 0
    let target: Int
    var failures = 0

    init(target: Int) {
        self.target = target
    }

    func add() -> Bool {
        count += 1
        return count == target
    }
}

/// With `BULK_CANCEL_CPU` set in the environment, prints the process's CPU seconds of
/// each drain (a figure other load on the machine disturbs less than wall time).
/// `phases`: nanoseconds spent cancelling, then until the queue was empty, then (for
/// RequestOperations) until the last callback ran.
private func reportCPU(_ seconds: Double, phases: [UInt64]) {
    if ProcessInfo.processInfo.environment["BULK_CANCEL_CPU"] != nil {
        let names = ["cancel", "drain", "last callback"]
        let split = zip(names, phases).map { String(format: "%@ %.3f s", $0, Double($1) / 1e9) }
        print(String(format: "  cpu %.3f s  (", seconds) + split.joined(separator: ", ") + ")")
    }
}

/// CPU seconds used by the whole process so far.
private func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
