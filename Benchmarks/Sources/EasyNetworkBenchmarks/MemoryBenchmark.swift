import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `--memory`: how much resident memory each finished request leaves behind, per path.
///
/// Every path runs in a fresh process of its own (this executable with `--memory-child`), so
/// that no path grows in a heap another one cut up: a warm-up, then the requests `--width` at
/// a time (8) in batches; before every reading freed heap goes back to the system
/// (`malloc_trim(0)`), so a reading counts the pages that still hold something alive. The
/// growth per request is the slope of a least-squares line through the readings (the first
/// one, after the warm-up, at zero requests). Next to it: the first-to-last difference, the
/// same from before the first request (one-time costs included) and the heap still allocated
/// per request (glibc's own count, the same slope): the part of the resident growth that is
/// live allocations rather than pages they keep resident.
enum MemoryBenchmark {
    /// The paths, in the order printed, with what each is.
    static let paths: [(name: String, label: String)] = [
        ("raw", "raw URLSession: a data task with a completion handler, main-queue callback"),
        ("floor", "floor: raw inside a minimal asynchronous Operation on an OperationQueue"),
        ("floor-async", "awaited floor: a Task awaiting the floor through a continuation"),
        ("easynetwork", "seed style: a ServiceOperation subclass on a NetworkQueue"),
        ("async", "async: try await queue.send(request, configuration:) in a Task"),
        ("mixed", "mixed: seed style and async in turn"),
    ]

    struct Options {
        var requests = 20_000
        var warmup = 2_000
        var batch = 1_000
        var width = 8
        var repeats = 1
        var names = MemoryBenchmark.paths.map(\.name)

        /// Reads `--requests N`, `--warmup K`, `--batch B`, `--width W`, `--repeats R`, `--paths a,b`.
        init(arguments: [String]) {
            func number(_ flag: String) -> Int? {
                guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
                return Int(arguments[index + 1])
            }
            requests = max(1, number("--requests") ?? requests)
            warmup = max(0, number("--warmup") ?? warmup)
            batch = max(1, number("--batch") ?? batch)
            width = max(1, number("--width") ?? width)
            repeats = max(1, number("--repeats") ?? repeats)
            if let index = arguments.firstIndex(of: "--paths"), index + 1 < arguments.count {
                names = arguments[index + 1].split(separator: ",").map(String.init)
            }
        }

        /// The arguments a child needs to run the same configuration.
        var childArguments: [String] {
            ["--requests", "\(requests)", "--warmup", "\(warmup)", "--batch", "\(batch)", "--width", "\(width)"]
        }
    }

    /// The readings of one path: resident KiB after the warm-up, then after every batch.
    struct Readings {
        var requests: [Int] = []
        var kib: [Int] = []
        /// Bytes malloc has handed out and not had back (`mallinfo2`), at each reading.
        var heap: [Int] = []
        /// Before the first request, and how many requests the warm-up sent.
        var start = 0
        var warmup = 0

        /// KiB per request: the least-squares slope through the readings.
        var slope: Double {
            Self.slope(requests, kib)
        }

        /// Bytes per request still allocated: the least-squares slope through the heap readings.
        var heapSlope: Double {
            Self.slope(requests, heap)
        }

        private static func slope(_ x: [Int], _ y: [Int]) -> Double {
            let n = Double(y.count)
            guard y.count > 1, x.count == y.count else { return 0 }
            let xs = x.map(Double.init), ys = y.map(Double.init)
            let mx = xs.reduce(0, +) / n, my = ys.reduce(0, +) / n
            let sxy = zip(xs, ys).reduce(0) { $0 + ($1.0 - mx) * ($1.1 - my) }
            let sxx = xs.reduce(0) { $0 + ($1 - mx) * ($1 - mx) }
            return sxx > 0 ? sxy / sxx : 0
        }

        /// KiB per request: last reading minus first, over the requests between.
        var difference: Double {
            guard let first = kib.first, let last = kib.last, let end = requests.last, end > 0 else { return 0 }
            return Double(last - first) / Double(end)
        }

        /// KiB per request from before the first request (the warm-up's one-time costs included).
        var fromStart: Double {
            guard let last = kib.last, let end = requests.last, end + warmup > 0, start > 0 else { return 0 }
            return Double(last - start) / Double(end + warmup)
        }
    }

    /// `--memory`: one child process per path (and repeat), then the table.
    /// `afterEach` runs after every child (to clear an in-process server's records).
    static func run(options: Options, serverURL: URL, serverPlace: String, known: Set<String>, afterEach: () -> Void = {}) {
        guard !options.names.isEmpty, options.names.allSatisfy({ known.contains($0) }) else {
            FileHandle.standardError.write(Data("unknown path in --paths; use \(paths.map(\.name).joined(separator: ","))\n".utf8))
            exit(2)
        }
        print("EasyNetwork memory: resident memory left per finished request, each path in a fresh process: \(options.warmup) warm-up requests, then \(options.requests) in batches of \(options.batch), \(options.width) at a time, malloc_trim(0) before each reading; \(serverPlace) on 127.0.0.1; load average \(loadAverage())")
        for (name, label) in paths where options.names.contains(name) {
            print("  \(pad(name, 12)) \(label)")
        }
        var results: [String: [Readings]] = [:]
        let began = Date()
        for repeatIndex in 0..<options.repeats {
            // The order turns every repeat.
            for offset in options.names.indices {
                let name = options.names[(repeatIndex + offset) % options.names.count]
                let readings = child(name: name, options: options, serverURL: serverURL)
                afterEach()
                guard let readings else {
                    FileHandle.standardError.write(Data("memory (\(name)): the child process failed\n".utf8))
                    continue
                }
                print("memory (\(name)): RSS KiB before the first request \(readings.start); after the warm-up, then after each batch: " + readings.kib.map(String.init).joined(separator: ", "))
                results[name, default: []].append(readings)
            }
        }
        printTable(names: options.names, results: results, repeats: options.repeats)
        print(String(format: "took %.0f s", Date().timeIntervalSince(began)))
    }

    /// The table: medians over the repeats, and the ratio of each path's KiB per request to
    /// each floor's.
    static func printTable(names: [String], results: [String: [Readings]], repeats: Int) {
        func middle(_ name: String, _ value: (Readings) -> Double) -> Double {
            median((results[name] ?? []).map(value))
        }
        print("")
        print("KiB per request after the warm-up (slope of the readings; last - first in brackets); from start: the same from before the first request, the warm-up included; heap: bytes per request still allocated (slope)\(repeats > 1 ? "; medians of \(repeats) repeats" : ""); the ratios are those of the KiB slopes")
        let columns = [("path", 13), ("KiB/req", 9), ("(last-first)", 14), ("from start", 12), ("heap B/req", 12), ("end RSS KiB", 13),
                       ("vs raw", 9), ("vs floor", 10), ("vs awaited", 12)]
        print(columns.enumerated().map { pad($0.element.0, $0.element.1, left: $0.offset > 0) }.joined())
        let floors = ["raw", "floor", "floor-async"].map { results[$0] == nil ? nil : middle($0, \.slope) }
        for name in names {
            let slope = middle(name, \.slope)
            let ratios = floors.map { base in base.map { $0 > 0 ? String(format: "%.2fx", slope / $0) : "-" } ?? "-" }
            let cells = [name, String(format: "%.3f", slope), String(format: "(%.3f)", middle(name, \.difference)),
                         String(format: "%.3f", middle(name, \.fromStart)), String(format: "%.0f", middle(name, \.heapSlope)),
                         String(format: "%.0f", middle(name) { Double($0.kib.last ?? 0) })] + ratios
            print(zip(cells, columns).enumerated().map { pad($0.element.0, $0.element.1.1, left: $0.offset > 0) }.joined())
        }
        if repeats > 1 {
            for name in names {
                let values = (results[name] ?? []).map { String(format: "%.3f", $0.slope) }
                print("\(pad(name, 12)) slopes \(values.joined(separator: ", "))")
            }
        }
    }

    /// Runs `name` in a child process and returns its readings.
    private static func child(name: String, options: Options, serverURL: URL) -> Readings? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = ["--memory-child", name, "--server", serverURL.absoluteString] + options.childArguments
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            return nil
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        var readings = Readings()
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 3, fields[0] == "start", let warmup = Int(fields[1]), let kib = Int(fields[2]) {
                (readings.warmup, readings.start) = (warmup, kib)
            }
            guard fields.count == 4, fields[0] == "reading", let requests = Int(fields[1]), let kib = Int(fields[2]),
                  let heap = Int(fields[3]) else { continue }
            readings.requests.append(requests)
            readings.kib.append(kib)
            readings.heap.append(heap)
        }
        return readings.kib.count > 1 ? readings : nil
    }

    /// `--memory-child NAME`: the warm-up, then the batches, printing `reading REQUESTS KIB`
    /// after the warm-up and after every batch.
    static func runChild(start: @escaping RequestPath, options: Options) {
        print("start \(options.warmup) \(trimmedResidentKiB())")
        if options.warmup > 0 {
            _ = throughput(count: options.warmup, width: options.width, start: start)
        }
        print("reading 0 \(trimmedResidentKiB()) \(heapInUse())")
        var done = 0
        while done < options.requests {
            let count = min(options.batch, options.requests - done)
            _ = throughput(count: count, width: options.width, start: start)
            done += count
            print("reading \(done) \(trimmedResidentKiB()) \(heapInUse())")
        }
    }

    /// Bytes malloc has handed out and not had back, every arena and mapped chunk (glibc's
    /// `malloc_info`: what each arena holds from the system minus its free chunks), or 0.
    static func heapInUse() -> Int {
        #if canImport(Glibc)
        typealias Info = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_info") else { return 0 }
        var buffer: UnsafeMutablePointer<CChar>?
        var length = 0
        guard let stream = open_memstream(&buffer, &length) else { return 0 }
        _ = unsafeBitCast(symbol, to: Info.self)(0, stream)
        fclose(stream)
        guard let buffer else { return 0 }
        let text = String(cString: buffer)
        free(buffer)
        // The totals of every arena follow the last arena's section.
        let totals = text.range(of: "</heap>", options: .backwards).map { text[$0.upperBound...] } ?? text[...]
        /// The `size` attribute of the element that starts with `element`.
        func size(_ element: String) -> Int {
            guard let start = totals.range(of: element)?.upperBound,
                  let value = totals[start...].range(of: "size=\"")?.upperBound else { return 0 }
            return Int(totals[value...].prefix { $0.isNumber }) ?? 0
        }
        return size("<system type=\"current\"") - size("<total type=\"fast\"") - size("<total type=\"rest\"")
            + size("<total type=\"mmap\"")
        #else
        return 0
        #endif
    }

    /// Resident memory in KiB after freed heap went back to the system.
    static func trimmedResidentKiB() -> Int {
        releaseFreedMemory()
        return memoryKiB().rss
    }

    private static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        guard text.count < width else { return " " + text }
        let fill = String(repeating: " ", count: width - text.count)
        return left ? fill + text : text + fill
    }

    private static func loadAverage() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "unknown" }
        return text.split(separator: " ").first.map(String.init) ?? "unknown"
    }
}

/// The mixed path: seed style and async in turn (touched only on the main queue, where every
/// request starts).
final class Alternation: @unchecked Sendable { // unchecked: `next` is read and written only on the main queue
    private var next = false

    func flip() -> Bool {
        next.toggle()
        return next
    }
}
