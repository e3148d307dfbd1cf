import Foundation

/// Throughput, in one run, of raw URLSession, the floor of any Operation-based client and
/// EasyNetwork (plus extra reference rows), sequential and 8 wide, in interleaved rounds.
enum ThroughputBenchmark {
    /// One way of sending the benchmark's GET.
    struct Path {
        /// Short name used in the round lines and the medians.
        let name: String
        /// What the path is, printed once at the top.
        let description: String
        let start: RequestPath
    }

    /// Runs `rounds` rounds; in each, every path sends `perRound` requests one at a time, then
    /// every path sends them 8 at a time. The order of the paths turns every round so neither
    /// drift nor position (a run inherits the warm state of the one before) favours one path.
    /// Prints every round and the medians: each rate's, and each round's ratio's.
    /// `main` is raw, floor, ours; `extras` are reference rows compared with raw only.
    static func run(rounds: Int, perRound: Int, serverPlace: String, raw: Path, floor: Path, ours: Path, extras: [Path],
                    afterEach: () -> Void) {
        let paths = [raw, floor, ours] + extras
        print("EasyNetwork throughput: \(rounds) rounds × \(perRound) GETs of a small JSON from \(serverPlace) on 127.0.0.1, the order of the paths turning every round; load average \(loadAverage())")
        for path in paths {
            print("  \(path.name.padding(toLength: 6, withPad: " ", startingAt: 0)) \(path.description)")
        }
        // Warm up every path (connections, caches, lazy sessions).
        for path in paths {
            _ = throughput(count: 200, width: 8, start: path.start)
        }
        afterEach()

        let widths = [("sequential", 1), ("8-wide", 8)]
        // rates[width label][path name] and ratios[width label][ratio label], one entry per round;
        // cpu[width label][path name]: CPU microseconds of this process per request.
        var rates: [String: [String: [Double]]] = [:]
        var cpu: [String: [String: [Double]]] = [:]
        var ratios: [String: [String: [Double]]] = [:]
        let ratioLabels = ["ours/floor", "ours/raw", "floor/raw"] + extras.map { "\($0.name)/raw" }
        for round in 1...rounds {
            for (label, width) in widths {
                var rate: [String: Double] = [:]
                for offset in paths.indices {
                    let path = paths[(round + offset) % paths.count]
                    let result = measure(count: perRound, width: width, start: path.start)
                    rate[path.name] = result.rate
                    cpu[label, default: [:]][path.name, default: []].append(result.cpu)
                    afterEach()
                }
                let r = rate[raw.name] ?? 0, f = rate[floor.name] ?? 0, o = rate[ours.name] ?? 0
                var roundRatios = ["ours/floor": o / f, "ours/raw": o / r, "floor/raw": f / r]
                for extra in extras {
                    roundRatios["\(extra.name)/raw"] = (rate[extra.name] ?? 0) / r
                }
                for path in paths {
                    rates[label, default: [:]][path.name, default: []].append(rate[path.name] ?? 0)
                }
                for key in ratioLabels {
                    ratios[label, default: [:]][key, default: []].append(roundRatios[key] ?? 0)
                }
                let rateText = paths.map { "\($0.name) \(String(format: "%.0f", rate[$0.name] ?? 0))" }.joined(separator: "  ")
                let ratioText = ratioLabels.map { "\($0) \(String(format: "%.3f", roundRatios[$0] ?? 0))" }.joined(separator: "  ")
                print("round \(round) \(label.padding(toLength: 10, withPad: " ", startingAt: 0)) req/s: \(rateText)  |  \(ratioText)")
            }
        }

        print("")
        print("medians of \(rounds) rounds (req/s; each ratio is the median of the rounds' ratios); load average \(loadAverage())")
        let header = ["", "raw", "floor", "EasyNetwork", "ours/floor", "ours/raw", "floor/raw"]
            + extras.map { "\($0.name)/raw" }
        print(header.enumerated().map { $0.offset == 0 ? pad($0.element, 11) : pad($0.element, 12, left: true) }.joined())
        for (label, _) in widths {
            var cells = [pad(label, 11)]
            for path in [raw, floor, ours] {
                cells.append(pad(String(format: "%.0f", median(rates[label]?[path.name] ?? [])), 12, left: true))
            }
            for key in ratioLabels {
                cells.append(pad(String(format: "%.3f", median(ratios[label]?[key] ?? [])), 12, left: true))
            }
            print(cells.joined())
        }
        print("")
        print("CPU time of this process per request, µs (user + system, every thread\(serverPlace.contains("this process") ? ", the server's included" : ", the client's alone")); medians of \(rounds) rounds:")
        print(["", "raw", "floor", "EasyNetwork", "ours/floor", "ours/raw", "floor/raw"].enumerated()
            .map { $0.offset == 0 ? pad($0.element, 11) : pad($0.element, 12, left: true) }.joined())
        for (label, _) in widths {
            let r = median(cpu[label]?[raw.name] ?? []), f = median(cpu[label]?[floor.name] ?? []), o = median(cpu[label]?[ours.name] ?? [])
            let cells = [r, f, o].map { pad(String(format: "%.1f", $0), 12, left: true) }
                + [o / f, o / r, f / r].map { pad(String(format: "%.3f", $0), 12, left: true) }
            print(pad(label, 11) + cells.joined())
        }
        print("")
        for (label, _) in widths {
            let values = ratios[label]?["ours/floor"] ?? []
            print(String(format: "%@ ours/floor: median %.3f, rounds %.3f–%.3f (issue 13 target: ≥ 0.95)",
                         pad(label, 11) as NSString, median(values), values.min() ?? 0, values.max() ?? 0))
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        if let load = Double(loadAverage()), load > Double(cores) {
            print("note: load average \(loadAverage()) on \(cores) cores: other processes shared the cores, so wall-clock rates (and less so CPU times) are unreliable; Benchmarks/instructions.sh counts instructions instead")
        }
    }

    private static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        guard text.count < width else { return " " + text }
        let fill = String(repeating: " ", count: width - text.count)
        return left ? fill + text : text + fill
    }

    /// The 1-minute load average (Linux), so a reader can tell a busy machine's figures.
    private static func loadAverage() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "unknown" }
        return text.split(separator: " ").first.map(String.init) ?? "unknown"
    }
}
