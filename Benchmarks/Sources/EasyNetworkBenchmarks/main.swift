import EasyNetwork
import EasyNetworkTesting
import Foundation

// EasyNetworkBenchmarks [requests-per-round] [rounds] [--no-memory] [--long-memory] [--decode-only]
//                       [--transfers] [--profile PATHS N WIDTH [REPEATS]] [--bulk-cancel [N] [ROUNDS]]
// 1. Throughput of EasyNetwork against raw URLSession, interleaved rounds in one run,
//    then memory over 10,000 finished requests through each, interleaved (60,000 with
//    --long-memory).
// --bulk-cancel [N] [ROUNDS]: N (100,000) queued operations cancelled at once, time to drain:
//    BlockOperation, a minimal async Operation and RequestOperation, with ratios
//    (BULK_CANCEL_CPU=1 also prints each drain's CPU seconds).
// --transfers: a 200 MB multipart upload and a 1 GB download, with peak RSS.
// 2. Decoding a 100,000-item array through EasyNetwork's mappers against hand-written
//    code (last, so its large allocations do not show in the memory figures).

let arguments = CommandLine.arguments
if let index = arguments.firstIndex(of: "--bulk-cancel") {
    let numbers = arguments.dropFirst(index + 1).prefix { Int($0) != nil }.compactMap { Int($0) }
    let count = numbers.first ?? 100_000
    let rounds = numbers.dropFirst().first ?? 5
    Thread.detachNewThread {
        BulkCancelBenchmark.run(count: count, rounds: rounds)
        exit(0)
    }
    dispatchMain()
}
if arguments.contains("--serve") {
    TransferBenchmark.serve()
}
if arguments.contains("--transfers") {
    do {
        try TransferBenchmark.run(uploadBytes: 200 << 20, downloadBytes: 1 << 30)
    } catch {
        print("transfer benchmark failed: \(error)")
    }
    exit(0)
}
let numbers = arguments.dropFirst().compactMap { Int($0) }
let perRound = numbers.first ?? 1000
let rounds = numbers.dropFirst().first ?? 7

func runDecodeBenchmark() {
    do {
        try DecodeBenchmark.run(items: 100_000, rounds: 5)
    } catch {
        print("decoding benchmark failed: \(error)")
    }
}
if arguments.contains("--decode-only") {
    runDecodeBenchmark()
    exit(0)
}

let server: LoopbackServer
do {
    server = try LoopbackServer()
} catch {
    FileHandle.standardError.write(Data("cannot start the server: \(error)\n".utf8))
    exit(1)
}
server.route("GET", "/bench") { _ in
    .json(#"{"id": 42, "name": "benchmark", "tags": ["a", "b", "c"], "active": true}"#)
}

let host = HostConfiguration(baseURL: server.baseURL)
let queue = NetworkQueue(maxConcurrentOperationCount: 8)
let raw = RawClient(url: server.baseURL.appendingPathComponent("bench"))

let viaRaw: RequestPath = { done in raw.get(done) }
// Reference: the raw call wrapped in a BlockOperation on an OperationQueue, i.e. the cost
// of the Operation hop alone, with no EasyNetwork code in the path.
let referenceQueue = OperationQueue()
referenceQueue.maxConcurrentOperationCount = 8
let viaOperationQueue: RequestPath = { done in
    referenceQueue.addOperation { raw.get(done) }
}
// Reference: the raw call started from a global-queue thread, i.e. one thread hop.
let viaHop: RequestPath = { done in
    DispatchQueue.global().async { raw.get(done) }
}
let viaEasyNetwork: RequestPath = { done in
    queue.addOperation(BenchOperation(configuration: host, onDone: done))
}

// --profile PATHS N WIDTH [REPEATS]: only the named paths (comma-separated, see
// ProfilePaths), N requests WIDTH at a time, repeated in turn; for `perf`.
if let index = arguments.firstIndex(of: "--profile"), arguments.count > index + 3,
   let count = Int(arguments[index + 2]), let width = Int(arguments[index + 3]) {
    let twin = RawClient(url: server.baseURL.appendingPathComponent("bench"))
    let known = ProfilePaths.all(host: host, raw: raw, twin: twin, queue: queue, referenceQueue: referenceQueue)
    let names = arguments[index + 1].split(separator: ",").map(String.init)
    let repeats = arguments.count > index + 4 ? Int(arguments[index + 4]) ?? 1 : 1
    guard !names.isEmpty, names.allSatisfy({ known[$0] != nil }) else {
        FileHandle.standardError.write(Data("unknown path in \(arguments[index + 1]); use \(known.keys.sorted().joined(separator: ", "))\n".utf8))
        exit(2)
    }
    Thread.detachNewThread {
        for name in names {
            _ = throughput(count: 200, width: width, start: known[name] ?? viaRaw)
        }
        for _ in 0..<repeats {
            for name in names {
                let rate = throughput(count: count, width: width, start: known[name] ?? viaRaw)
                print(String(format: "%@ width %d: %.0f req/s", name as NSString, width, rate))
            }
        }
        server.stop()
        exit(0)
    }
    dispatchMain()
}

Thread.detachNewThread {
    print("EasyNetwork benchmark: \(rounds) rounds × \(perRound) GETs of a small JSON on 127.0.0.1")
    // Warm up both paths (connections, caches, lazy sessions).
    _ = throughput(count: 200, width: 8, start: viaRaw)
    _ = throughput(count: 200, width: 8, start: viaEasyNetwork)

    var ratios: [String: [Double]] = ["sequential": [], "8-wide": []]
    var referenceRatios: [String: [Double]] = ["sequential": [], "8-wide": []]
    var hopRatios: [String: [Double]] = ["sequential": [], "8-wide": []]
    var rates: [String: [Double]] = [:]
    for round in 1...rounds {
        for (label, width) in [("sequential", 1), ("8-wide", 8)] {
            // Rotate the order of the paths so that neither drift nor position
            // (the run right after another one inherits its warm state) favours one.
            var rate: [String: Double] = [:]
            let paths: [(String, RequestPath)] = [("raw", viaRaw), ("easynetwork", viaEasyNetwork), ("reference", viaOperationQueue), ("hop", viaHop)]
            for offset in 0..<paths.count {
                let (name, path) = paths[(round + offset) % paths.count]
                rate[name] = throughput(count: perRound, width: width, start: path)
            }
            let rawRate = rate["raw"] ?? 0, enRate = rate["easynetwork"] ?? 0, referenceRate = rate["reference"] ?? 0
            hopRatios[label, default: []].append((rate["hop"] ?? 0) / rawRate)
            server.resetRecords()
            ratios[label, default: []].append(enRate / rawRate)
            referenceRatios[label, default: []].append(referenceRate / rawRate)
            rates["raw \(label)", default: []].append(rawRate)
            rates["EasyNetwork \(label)", default: []].append(enRate)
            print(String(format: "round %d %-10@ raw %8.0f req/s  EasyNetwork %8.0f req/s  ratio %.3f  (raw in an OperationQueue: %.3f, raw after one hop: %.3f)",
                         round, label as NSString, rawRate, enRate, enRate / rawRate, referenceRate / rawRate, (rate["hop"] ?? 0) / rawRate))
        }
    }
    for label in ["sequential", "8-wide"] {
        print(String(format: "median %-10@ raw %8.0f req/s  EasyNetwork %8.0f req/s  ratio EasyNetwork/raw %.3f (target ≥ 0.97)",
                     label as NSString,
                     median(rates["raw \(label)"] ?? []), median(rates["EasyNetwork \(label)"] ?? []),
                     median(ratios[label] ?? [])))
        print(String(format: "median %-10@ reference: raw URLSession inside a BlockOperation on an OperationQueue / raw = %.3f",
                     label as NSString, median(referenceRatios[label] ?? [])))
        print(String(format: "median %-10@ reference: raw URLSession started from a global-queue thread / raw = %.3f",
                     label as NSString, median(hopRatios[label] ?? [])))
    }

    if arguments.contains("--no-memory") {
        server.stop()
        print("")
        runDecodeBenchmark()
        exit(0)
    }
    // Memory: finished requests must not accumulate (the server's own log is cleared
    // after every batch). Batches through raw URLSession, alone and in an
    // OperationQueue, interleaved, show how much of any growth is the platform's own.
    raw.invalidate()
    server.resetRecords()
    let batches = arguments.contains("--long-memory") ? 60 : 10
    let rawForMemory = RawClient(url: server.baseURL.appendingPathComponent("bench"))
    let growth = memoryGrowth(batches: batches, server: server, paths: [
        ("EasyNetwork", viaEasyNetwork),
        ("raw URLSession", { done in rawForMemory.get(done) }),
        ("raw URLSession in an OperationQueue", { done in referenceQueue.addOperation { rawForMemory.get(done) } }),
    ])
    let peak = memoryKiB().peak
    print(String(format: "memory: peak RSS %d KiB (%.1f MiB) after %d requests through each path; growth over the second half, KiB per request: EasyNetwork %.2f, raw URLSession %.2f, raw URLSession in an OperationQueue %.2f",
                 peak, Double(peak) / 1024, batches * 1000, growth[0], growth[1], growth[2]))
    server.stop()
    print("")
    runDecodeBenchmark()
    exit(0)
}
dispatchMain()
