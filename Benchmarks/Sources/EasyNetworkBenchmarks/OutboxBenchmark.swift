import EasyNetwork
import EasyNetworkOutbox
import EasyNetworkTesting
import Foundation

/// `--outbox [N] [ROUNDS]`: the outbox (issue 23). Per round, in a fresh folder: N entries
/// accepted one after another (each durably stored before `send` returns), then N more
/// from four threads; the memory of the process while 2N wait (and of a second outbox that
/// only scanned the folder); then the 2N delivered to a loopback server, one at a time
/// (width 1, in order) and, in a second folder, four at a time. Prints entries per second
/// for each, with medians over the rounds.
enum OutboxBenchmark {
    struct Event: BaseAPIRequest {
        let n: Int
        var api: String { "/events" }
        var method: NetworkService.Method { .post }
        var query: NetworkService.QueryType { .json }
        var params: [String: Any]? { ["event": "screen_view", "n": n, "session": "3F2504E0-4F89-11D3-9A0C-0305E82C3301", "properties": ["screen": "checkout", "step": 3]] }
        var headers: [String: String]? { nil }
    }

    static func run(count: Int, rounds: Int) {
        guard let server = try? LoopbackServer() else {
            print("outbox benchmark: cannot start the server")
            return
        }
        server.route("POST", "/events") { _ in .status(204) }
        let host = HostConfiguration(baseURL: server.baseURL)
        host.callbackQueue = DispatchQueue(label: "outbox.bench.callbacks")
        let queue = NetworkQueue(maxConcurrentOperationCount: 8)
        var sequential: [Double] = [], parallel: [Double] = [], deliveredOne: [Double] = [], deliveredFour: [Double] = []
        print("outbox: \(count) entries accepted one after another, \(count) from 4 threads, then all delivered (width 1; then width 4), \(rounds) rounds")
        for round in 1...rounds {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let outbox = Outbox(host: host, queue: queue, folder: folder)
            _ = outbox.pendingCount  // the folder is prepared outside the measurement
            releaseFreedMemory()
            let empty = memoryKiB().rss
            var started = Date()
            for n in 0..<count { send(outbox, n) }
            sequential.append(Double(count) / Date().timeIntervalSince(started))
            started = Date()
            DispatchQueue.concurrentPerform(iterations: 4) { part in
                for n in stride(from: count + part, to: 2 * count, by: 4) { send(outbox, n) }
            }
            parallel.append(Double(count) / Date().timeIntervalSince(started))
            releaseFreedMemory()
            let waiting = memoryKiB().rss
            let reader = Outbox(host: host, queue: queue, folder: folder)
            _ = reader.pendingCount
            releaseFreedMemory()
            let scanned = memoryKiB().rss
            print("round \(round): accepted \(Int(sequential.last ?? 0))/s one after another, \(Int(parallel.last ?? 0))/s from 4 threads; RSS \(empty) KiB empty, \(waiting) KiB with \(2 * count) waiting (+\(waiting - empty)), \(scanned) KiB after a second outbox scanned them (+\(scanned - waiting))")
            deliveredOne.append(drain(outbox, count: 2 * count))

            let wide = folder.appendingPathComponent("wide")
            let four = Outbox(host: host, queue: queue, folder: wide, options: OutboxOptions(width: 4))
            DispatchQueue.concurrentPerform(iterations: 4) { part in
                for n in stride(from: part, to: 2 * count, by: 4) { send(four, n) }
            }
            deliveredFour.append(drain(four, count: 2 * count))
            print("round \(round): delivered \(Int(deliveredOne.last ?? 0))/s width 1, \(Int(deliveredFour.last ?? 0))/s width 4")
            server.resetRecords()
        }
        print("outbox medians: accepted \(Int(median(sequential)))/s one after another, \(Int(median(parallel)))/s from 4 threads; delivered \(Int(median(deliveredOne)))/s width 1, \(Int(median(deliveredFour)))/s width 4")
        server.stop()
    }

    private static func send(_ outbox: Outbox, _ n: Int) {
        do {
            try outbox.send(Event(n: n))
        } catch {
            print("outbox benchmark: send failed: \(error)")
            exit(1)
        }
    }

    /// Resumes `outbox` and returns entries delivered per second until none is left.
    private static func drain(_ outbox: Outbox, count: Int) -> Double {
        let started = Date()
        outbox.resume()
        while outbox.pendingCount > 0 { usleep(1_000) }
        let rate = Double(count) / Date().timeIntervalSince(started)
        outbox.pause()
        return rate
    }
}
