import EasyNetwork
import EasyNetworkTesting
import Foundation

// EasyNetworkBenchmarks [requests-per-round] [rounds] [--throughput-only] [--no-memory] [--long-memory] [--decode-only]
//                       [--transfers] [--bulk-cancel [N] [ROUNDS]] [--runloop]
//                       [--profile PATHS N WIDTH [REPEATS] [--warmup K]] [--server-process | --server URL]
//                       [--serve-bench] [--outbox [N] [ROUNDS]] [--encoding [ROUNDS]]
//                       [--memory [--requests N] [--warmup K] [--batch B] [--width W] [--repeats R] [--paths a,b]]
//                       [--fleet [CLIENTS] [--quick] [--with-breaker] [--seed N]]
// 1. Throughput, interleaved rounds in one run, sequential and 8 wide: raw URLSession, the
//    floor (raw URLSession inside a minimal asynchronous Operation on an OperationQueue) and
//    EasyNetwork (a seed-style ServiceOperation on a NetworkQueue), with medians and the
//    ratios EasyNetwork/floor and EasyNetwork/raw; two extra rows (not floors): raw inside a
//    BlockOperation, raw started after one global-queue hop. Then memory (as --memory) with
//    10,000 requests per path (60,000 with --long-memory); --throughput-only stops before,
//    --no-memory skips it.
// --bulk-cancel [N] [ROUNDS]: N (100,000) queued operations cancelled at once, time to drain:
//    BlockOperation, a minimal async Operation and RequestOperation, with ratios
//    (BULK_CANCEL_CPU=1 also prints each drain's CPU seconds).
// --outbox [N] [ROUNDS]: the outbox (EasyNetworkOutbox): entries per second accepted (each
//    durably stored) and delivered, and memory while 2N (10,000) wait (see OutboxBenchmark).
// --encoding [ROUNDS]: building one request whose field name or value is 10 KB, 100 KB and
//    1 MB, in every encoding (path, form, JSON, multipart), ms per request and the ratio
//    between sizes (about 10 is linear); nothing is sent (see EncodingBenchmark).
// --memory: resident memory left per finished request, each path in a fresh process of its
//    own: raw URLSession, the floor, the awaited floor, seed style, async and both mixed, with
//    the ratios to each floor (see MemoryBenchmark); about 1-3 min with the defaults.
// --fleet [CLIENTS] [--quick] [--with-breaker] [--seed N]: CLIENTS (200) devices, each its own
//    host with RetryPolicy.default, against a backend that answers 503 for a while (without,
//    then with Retry-After), then with 5 % random failures: retry amplification, the peak after
//    recovery, the time until 99 % succeed again, the success rate; 0.3's per-request retries
//    against the 1.0 defaults, same seed (see FleetBenchmark).
// --transfers: a 200 MB multipart upload and a 1 GB download, with peak RSS.
// --profile: only the named paths (see ProfilePaths), for perf and instructions.sh; K (200)
//    warm-up requests per path first.
// The server runs in this process, in a child process with --server-process (CPU time and
//    memory are then the client's alone), or elsewhere with --server URL (see --serve-bench).
// --runloop (or EASYNETWORK_BENCH_RUNLOOP=1): the main RunLoop serves the main queue instead
//    of dispatchMain() (valgrind crashes in dispatchMain).
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
    runMainLoop()
}
if let index = arguments.firstIndex(of: "--outbox") {
    let numbers = arguments.dropFirst(index + 1).prefix { Int($0) != nil }.compactMap { Int($0) }
    let count = numbers.first ?? 5_000
    let rounds = numbers.dropFirst().first ?? 3
    Thread.detachNewThread {
        OutboxBenchmark.run(count: count, rounds: rounds)
        exit(0)
    }
    runMainLoop()
}
if let index = arguments.firstIndex(of: "--fleet") {
    let clients = arguments.dropFirst(index + 1).first.flatMap { Int($0) } ?? 200
    let seed = arguments.firstIndex(of: "--seed").flatMap { arguments.count > $0 + 1 ? UInt64(arguments[$0 + 1]) : nil } ?? 30
    let (quick, breaker) = (arguments.contains("--quick"), arguments.contains("--with-breaker"))
    Thread.detachNewThread {
        FleetBenchmark.run(clients: clients, quick: quick, withBreaker: breaker, seed: seed)
    }
    runMainLoop()
}
if let index = arguments.firstIndex(of: "--encoding") {
    let rounds = arguments.dropFirst(index + 1).first.flatMap { Int($0) } ?? 5
    EncodingBenchmark.run(rounds: rounds)
    exit(0)
}
if arguments.contains("--serve-bench") {
    BenchServer.serve()
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

/// The value after `flag` on the command line.
func argument(after flag: String) -> String? {
    guard let index = arguments.firstIndex(of: flag), arguments.count > index + 1 else { return nil }
    return arguments[index + 1]
}

// The server: in this process (the default), in a child process (--server-process: this
// process's CPU time and memory are then the client's alone) or already running elsewhere
// (--server URL, e.g. one started with --serve-bench).
let external = argument(after: "--server").flatMap(URL.init(string:))
let child: BenchServer.Child?
let server: LoopbackServer?
do {
    // --memory measures the client alone: its server runs in a child process.
    let ownProcess = arguments.contains("--server-process") || arguments.contains("--memory")
    child = external == nil && ownProcess ? try BenchServer.Child() : nil
    server = external == nil && child == nil ? try BenchServer.start() : nil
} catch {
    FileHandle.standardError.write(Data("cannot start the server: \(error)\n".utf8))
    exit(1)
}
let baseURL = external ?? child?.baseURL ?? server?.baseURL ?? URL(fileURLWithPath: "/")
let serverPlace = external != nil ? "a server already running" : child != nil ? "a server in a child process" : "a server in this process"

/// Forgets the requests an in-process server recorded (a child forgets its own every second).
@Sendable func forgetRecords() {
    server?.resetRecords()
}

@Sendable func stopServer() {
    server?.stop()
    child?.stop()
}

let host = HostConfiguration(baseURL: baseURL)
let queue = NetworkQueue(maxConcurrentOperationCount: 8)
let raw = RawClient(url: baseURL.appendingPathComponent("bench"))

let viaRaw: RequestPath = { done in raw.get(done) }
// The floor: the raw call inside a minimal asynchronous Operation on an OperationQueue,
// finished from the task's completion, i.e. what any Operation-based client must pay.
let floorQueue = OperationQueue()
floorQueue.maxConcurrentOperationCount = 8
let viaFloor: RequestPath = { done in
    floorQueue.addOperation(FloorOperation(raw: raw, onDone: done))
}
// Extra (not a floor): the raw call wrapped in a BlockOperation, which finishes as soon as
// the task is started, so the queue never holds a request in flight.
let referenceQueue = OperationQueue()
referenceQueue.maxConcurrentOperationCount = 8
let viaOperationQueue: RequestPath = { done in
    referenceQueue.addOperation { raw.get(done) }
}
// Extra: the raw call started from a global-queue thread, i.e. one thread hop.
let viaHop: RequestPath = { done in
    DispatchQueue.global().async { raw.get(done) }
}
let viaEasyNetwork: RequestPath = { done in
    queue.addOperation(BenchOperation(configuration: host, onDone: done))
}

// --memory / --memory-child NAME: resident memory per request (see MemoryBenchmark).
if arguments.contains("--memory") || arguments.contains("--memory-child") {
    let known = ProfilePaths.all(host: host, raw: raw, twin: raw, delegated: DelegateClient(url: baseURL.appendingPathComponent("bench")),
                                 queue: queue, floorQueue: floorQueue, referenceQueue: referenceQueue)
    let options = MemoryBenchmark.Options(arguments: arguments)
    let childPath = argument(after: "--memory-child")
    if let childPath, known[childPath] == nil {
        FileHandle.standardError.write(Data("unknown path \(childPath)\n".utf8))
        exit(2)
    }
    Thread.detachNewThread {
        if let childPath, let start = known[childPath] {
            MemoryBenchmark.runChild(start: start, options: options)
        } else {
            MemoryBenchmark.run(options: options, serverURL: baseURL, serverPlace: serverPlace, known: Set(MemoryBenchmark.paths.map(\.name)))
        }
        stopServer()
        exit(0)
    }
    runMainLoop()
}

// --profile PATHS N WIDTH [REPEATS]: only the named paths (comma-separated, see
// ProfilePaths), N requests WIDTH at a time, repeated in turn; for `perf` and instructions.sh.
if let index = arguments.firstIndex(of: "--profile"), arguments.count > index + 3,
   let count = Int(arguments[index + 2]), let width = Int(arguments[index + 3]) {
    let twin = RawClient(url: baseURL.appendingPathComponent("bench"))
    let delegated = DelegateClient(url: baseURL.appendingPathComponent("bench"))
    let known = ProfilePaths.all(host: host, raw: raw, twin: twin, delegated: delegated, queue: queue, floorQueue: floorQueue, referenceQueue: referenceQueue)
    let names = arguments[index + 1].split(separator: ",").map(String.init)
    let repeats = arguments.count > index + 4 ? Int(arguments[index + 4]) ?? 1 : 1
    let warmup = argument(after: "--warmup").flatMap { Int($0) } ?? 200
    guard !names.isEmpty, names.allSatisfy({ known[$0] != nil }) else {
        FileHandle.standardError.write(Data("unknown path in \(arguments[index + 1]); use \(known.keys.sorted().joined(separator: ", "))\n".utf8))
        exit(2)
    }
    Thread.detachNewThread {
        if warmup > 0 {
            for name in names {
                _ = throughput(count: warmup, width: width, start: known[name] ?? viaRaw)
            }
        }
        for _ in 0..<repeats {
            for name in names {
                let rate = throughput(count: count, width: width, start: known[name] ?? viaRaw)
                print(String(format: "%@ width %d: %.0f req/s", name as NSString, width, rate))
            }
        }
        stopServer()
        exit(0)
    }
    runMainLoop()
}

Thread.detachNewThread {
    ThroughputBenchmark.run(
        rounds: rounds, perRound: perRound, serverPlace: serverPlace,
        raw: .init(name: "raw", description: "URLSession dataTask with a completion handler, JSONSerialization, main-queue callback", start: viaRaw),
        floor: .init(name: "floor", description: "raw inside a minimal asynchronous Operation (KVO isExecuting/isFinished, finished from the task's completion) on an OperationQueue, width 8", start: viaFloor),
        ours: .init(name: "ours", description: "EasyNetwork: a seed-style ServiceOperation (service.request, JSON) on a NetworkQueue, width 8", start: viaEasyNetwork),
        extras: [
            .init(name: "block", description: "extra, not a floor: raw inside a BlockOperation on an OperationQueue (it finishes when the task starts)", start: viaOperationQueue),
            .init(name: "hop", description: "extra: raw started from a global-queue thread (one thread hop)", start: viaHop),
        ],
        afterEach: forgetRecords)

    if arguments.contains("--throughput-only") {
        stopServer()
        exit(0)
    }
    if arguments.contains("--no-memory") {
        stopServer()
        print("")
        runDecodeBenchmark()
        exit(0)
    }
    // Memory: what finished requests leave behind, each path in a process of its own
    // (the same as --memory with 10,000 requests per path, 60,000 with --long-memory).
    raw.invalidate()
    forgetRecords()
    print("")
    var memory = MemoryBenchmark.Options(arguments: arguments)
    memory.requests = arguments.contains("--long-memory") ? 60_000 : 10_000
    MemoryBenchmark.run(options: memory, serverURL: baseURL, serverPlace: serverPlace, known: Set(MemoryBenchmark.paths.map(\.name)),
                        afterEach: forgetRecords)
    stopServer()
    print("")
    runDecodeBenchmark()
    exit(0)
}
runMainLoop()
