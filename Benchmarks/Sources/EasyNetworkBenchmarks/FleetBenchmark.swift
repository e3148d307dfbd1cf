import EasyNetwork
import EasyNetworkRetry
import Foundation

/// `--fleet [CLIENTS] [--quick] [--with-breaker] [--seed N]`: what a fleet of devices does
/// to its backend during an outage (issue 30). CLIENTS (200) clients, each with its own
/// `HostConfiguration` and `RetryPolicy.default`, send `GET /fleet` every 0.5–1.5 s
/// (seeded), to a loopback server that answers 503 for an outage window, once without and
/// once with `Retry-After`, then recovers; CLIENTS / 2 more clients, each on a host of its
/// own, send one `GET /single` at a random moment of the outage's first half. Then a run
/// without outage where 5 % of attempts fail. Each run twice: the retries of 0.3 (the
/// host's budget, pause and breaker off) and the new defaults (and with `--with-breaker`
/// the defaults plus `CircuitBreaker.default`), with the same seed.
enum FleetBenchmark {
    struct Ping: BaseAPIRequest {
        let path: String
        let client: Int
        let number: Int
        var api: String { path }
        var params: [String: Any]? { ["c": client, "r": number] }
    }

    /// The retry behaviour a run measures.
    enum Mode: String, CaseIterable {
        case old = "0.3 (per request)"
        case new = "1.0 defaults"
        case breaker = "1.0 + breaker"

        func configure(_ host: HostConfiguration) {
            host.retryPolicy = .default
            switch self {
            case .old:
                host.retryBudget = nil
                host.backpressure = nil
            case .new:
                break
            case .breaker:
                host.circuitBreaker = .default
            }
        }
    }

    /// Seconds of one outage run: before, during, after.
    struct Timeline {
        let steady: TimeInterval
        let outage: TimeInterval
        let after: TimeInterval
        var outageRange: Range<TimeInterval> { steady..<(steady + outage) }
        var total: TimeInterval { steady + outage + after }
    }

    /// What the clients saw: requests started, and when each ended well, per client.
    final class Ledger: @unchecked Sendable {  // unchecked: every `var` guarded by `lock`
        private let lock = NSLock()
        private(set) var started: [TimeInterval] = []
        private(set) var successes: [Int: [TimeInterval]] = [:]
        private(set) var outcomes = (ok: 0, failed: 0)

        func start(at t: TimeInterval) {
            lock.lock(); started.append(t); lock.unlock()
        }

        func end(client: Int, ok: Bool, at t: TimeInterval) {
            lock.lock()
            if ok {
                successes[client, default: []].append(t)
                outcomes.ok += 1
            } else {
                outcomes.failed += 1
            }
            lock.unlock()
        }

        var snapshot: (started: [TimeInterval], successes: [Int: [TimeInterval]], ok: Int, failed: Int) {
            lock.lock(); defer { lock.unlock() }
            return (started, successes, outcomes.ok, outcomes.failed)
        }
    }

    static func run(clients: Int, quick: Bool, withBreaker: Bool, seed: UInt64) {
        let timeline = quick ? Timeline(steady: 5, outage: 10, after: 8) : Timeline(steady: 8, outage: 20, after: 10)
        let modes: [Mode] = withBreaker ? Mode.allCases : [.old, .new]
        print("fleet: \(clients) clients (+\(clients / 2) single-request clients), each its own host, RetryPolicy.default, a request every 0.5-1.5 s;")
        print("       \(Int(timeline.steady)) s steady, \(Int(timeline.outage)) s of 503, \(Int(timeline.after)) s after; seed \(seed)")
        print("| outage | retries | attempts per first attempt during the outage | peak per 100 ms after recovery / steady mean | peak per second after recovery / steady mean | 99 % of clients succeed again after | success rate |")
        print("|---|---|---:|---:|---:|---:|---:|")
        var rows: [String] = []
        for retryAfter in [nil, 5] as [Int?] {
            for mode in modes {
                let (row, single) = outage(mode: mode, clients: clients, timeline: timeline, retryAfter: retryAfter, seed: seed)
                rows.append(row)
                print(row)
                print(single)
            }
        }
        for mode in modes {
            let row = failures(mode: mode, clients: clients, seconds: quick ? 8 : 15, seed: seed)
            rows.append(row)
            print(row)
        }
        exit(0)
    }

    /// Starts `clients` clients of `mode` sending to `path` every 0.5–1.5 s until `until`
    /// (server seconds); `single` clients send once, at a moment in `window`.
    private static func launch(
        _ mode: Mode, clients: Int, path: String, server: FleetServer, ledger: Ledger, until: TimeInterval,
        seed: UInt64, single window: Range<TimeInterval>? = nil
    ) -> [HostConfiguration] {
        let callbacks = DispatchQueue(label: "fleet.callbacks", attributes: .concurrent)
        var hosts: [HostConfiguration] = []
        for client in 0..<clients {
            let host = HostConfiguration(baseURL: server.server.baseURL)
            host.callbackQueue = callbacks
            mode.configure(host)
            hosts.append(host)
            var generator = SeededGenerator(seed: seed &+ UInt64(client) &* 7919 &+ (window == nil ? 0 : 1_000_003))
            var moments: [TimeInterval] = []
            if let window {
                moments = [window.lowerBound + Double.random(in: 0..<1, using: &generator) * (window.upperBound - window.lowerBound)]
            } else {
                var t = Double.random(in: 0..<1, using: &generator)
                while t < until {
                    moments.append(t)
                    t += Double.random(in: 0.5...1.5, using: &generator)
                }
            }
            let service = EasyNetworkService(host)
            for (number, moment) in moments.enumerated() {
                DispatchQueue.global().asyncAfter(deadline: .now() + max(0, moment - server.now)) {
                    ledger.start(at: server.now)
                    service.request(Ping(path: path, client: client, number: number), success: { _ in
                        ledger.end(client: client, ok: true, at: server.now)
                    }, failure: { _ in
                        ledger.end(client: client, ok: false, at: server.now)
                    })
                }
            }
        }
        return hosts
    }

    private static func outage(mode: Mode, clients: Int, timeline: Timeline, retryAfter: Int?, seed: UInt64) -> (String, String) {
        guard let server = try? FleetServer(outage: timeline.outageRange, retryAfter: retryAfter, failureShare: 0, seed: seed) else {
            return ("fleet: cannot start the server", "")
        }
        let (fleet, single) = (Ledger(), Ledger())
        let outage = timeline.outageRange
        var hosts = launch(mode, clients: clients, path: "/fleet", server: server, ledger: fleet, until: timeline.total, seed: seed)
        hosts += launch(mode, clients: clients / 2, path: "/single", server: server, ledger: single, until: timeline.total, seed: seed,
                        single: outage.lowerBound..<(outage.lowerBound + timeline.outage / 2))
        Thread.sleep(forTimeInterval: timeline.total + 2 - server.now)
        withExtendedLifetime(hosts) {}

        let bins = server.bins("/fleet"), seen = fleet.snapshot
        func attempts(_ range: Range<TimeInterval>) -> Int {
            bins.indices.filter { range.contains(Double($0) / 10) }.reduce(0) { $0 + bins[$1] }
        }
        let steadyRange = 2.0..<outage.lowerBound  // the first 2 s warm up
        let steadyBins = bins.indices.filter { steadyRange.contains(Double($0) / 10) }.map { bins[$0] }
        let steadyMean = Double(steadyBins.reduce(0, +)) / Double(max(1, steadyBins.count))
        let steadyPeak = steadyBins.max() ?? 0
        let firsts = seen.started.filter { outage.contains($0) }.count
        let amplification = Double(attempts(outage)) / Double(max(1, firsts))
        // After the first 5 s of the outage: what a device still sends once its first failures are behind it.
        let later = (outage.lowerBound + 5)..<outage.upperBound
        let laterAmplification = Double(attempts(later)) / Double(max(1, seen.started.filter { later.contains($0) }.count))
        let recoveryBins = bins.indices.filter { (outage.upperBound..<(outage.upperBound + 5)).contains(Double($0) / 10) }.map { bins[$0] }
        let peak = recoveryBins.max() ?? 0
        // The same over whole seconds (10 bins), which the noise of a loaded machine moves less.
        func perSecond(_ values: [Int]) -> [Int] {
            values.count < 10 ? [] : (0...(values.count - 10)).map { values[$0..<($0 + 10)].reduce(0, +) }
        }
        let peakSecond = perSecond(recoveryBins).max() ?? 0, steadyPeakSecond = perSecond(steadyBins).max() ?? 0
        // Per client, its first success that ended after the recovery.
        let back = (0..<clients).map { client in seen.successes[client]?.first { $0 >= outage.upperBound }.map { $0 - outage.upperBound } ?? .infinity }.sorted()
        let p99 = back[min(back.count - 1, Int((Double(back.count) * 0.99).rounded(.up)) - 1)]

        let singleSeen = single.snapshot, singleBins = server.bins("/single")
        let singleAttempts = singleBins.reduce(0, +)
        let late = singleBins.indices.filter { Double($0) / 10 >= outage.upperBound }.reduce(0) { $0 + singleBins[$1] }
        let signal = retryAfter.map { "503 + Retry-After: \($0)" } ?? "503"
        let row = String(
            format: "| %@ | %@ | %.2f (%.2f after 5 s) | %.2f (steady %.2f) | %.2f (steady %.2f) | %.1f s | |",
            signal, mode.rawValue, amplification, laterAmplification,
            Double(peak) / max(1, steadyMean), Double(steadyPeak) / max(1, steadyMean),
            Double(peakSecond) / max(1, steadyMean * 10), Double(steadyPeakSecond) / max(1, steadyMean * 10), p99
        )
        let singleRow = String(
            format: "|   single-request clients | %@ | %.2f attempts per request (%d of %d after recovery), %d of %d succeeded | | | | |",
            mode.rawValue, Double(singleAttempts) / Double(max(1, singleSeen.started.count)), late, singleAttempts,
            singleSeen.ok, singleSeen.started.count
        )
        server.server.stop()
        return (row, singleRow)
    }

    private static func failures(mode: Mode, clients: Int, seconds: TimeInterval, seed: UInt64) -> String {
        guard let server = try? FleetServer(outage: 0..<0, retryAfter: nil, failureShare: 0.05, seed: seed) else {
            return "fleet: cannot start the server"
        }
        let ledger = Ledger()
        let hosts = launch(mode, clients: clients, path: "/fleet", server: server, ledger: ledger, until: seconds, seed: seed)
        Thread.sleep(forTimeInterval: seconds + 4 - server.now)
        withExtendedLifetime(hosts) {}
        let seen = ledger.snapshot
        let attempts = server.bins("/fleet").reduce(0, +)
        server.server.stop()
        return String(
            format: "| 5 %% of attempts fail, no outage | %@ | %.3f | | | | %.2f %% of %d requests succeeded |",
            mode.rawValue, Double(attempts) / Double(max(1, seen.started.count)), 100 * Double(seen.ok) / Double(max(1, seen.ok + seen.failed)), seen.ok + seen.failed
        )
    }
}
