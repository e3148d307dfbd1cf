import EasyNetworkTesting
import Foundation

/// The fleet benchmark's backend: a loopback server that answers `GET /fleet` and
/// `GET /single` (`?c=<client>&r=<request>`) with 503 during an outage (with `Retry-After`
/// when asked), else with 200, or with 503 for a share of attempts picked by a seeded hash
/// of the attempt (the same attempts fail in every run with the same seed). It counts the
/// attempts it receives per 100 ms, per path.
final class FleetServer: @unchecked Sendable {  // unchecked: every `var` guarded by `lock`
    let server: LoopbackServer
    private let lock = NSLock()
    private let start: Date
    private let outage: Range<TimeInterval>
    private let retryAfter: Int?
    private let failureShare: Double
    private let seed: UInt64
    private var bins: [String: [Int]] = [:]
    private var attemptsOf: [String: Int] = [:]

    /// A server whose clock starts now; `outage` in seconds from now.
    init(outage: Range<TimeInterval>, retryAfter: Int?, failureShare: Double, seed: UInt64) throws {
        server = try LoopbackServer()
        start = Date()
        self.outage = outage
        self.retryAfter = retryAfter
        self.failureShare = failureShare
        self.seed = seed
        for path in ["/fleet", "/single"] {
            server.route("GET", path) { [unowned self] request in answer(request) }
        }
    }

    /// Seconds since the server's clock started.
    var now: TimeInterval { Date().timeIntervalSince(start) }

    /// Attempts received on `path` per 100 ms bin.
    func bins(_ path: String) -> [Int] {
        lock.lock()
        defer { lock.unlock() }
        return bins[path] ?? []
    }

    private func answer(_ request: RecordedRequest) -> LoopbackReply {
        let t = now
        let bin = Int(t * 10)
        let key = request.path + "?" + (request.query ?? "")
        lock.lock()
        var counts = bins[request.path] ?? []
        if counts.count <= bin { counts += [Int](repeating: 0, count: bin - counts.count + 1) }
        counts[bin] += 1
        bins[request.path] = counts
        let attempt = (attemptsOf[key] ?? 0) + 1
        attemptsOf[key] = attempt
        lock.unlock()
        if outage.contains(t) {
            return .status(503, headers: retryAfter.map { ["Retry-After": String($0)] } ?? [:])
        }
        if failureShare > 0, Self.unit(hash: seed, key, attempt) < failureShare {
            return .status(503)
        }
        return .json(#"{"ok": true}"#)
    }

    /// A number in 0..<1 from `seed`, `key` and `attempt` (FNV-1a, then a SplitMix64 step).
    private static func unit(hash seed: UInt64, _ key: String, _ attempt: Int) -> Double {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ seed
        for byte in Array(key.utf8) + Array(String(attempt).utf8) {
            h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
        h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((h ^ (h >> 31)) >> 11) / Double(1 << 53)
    }
}

/// SplitMix64: the same seed gives the same numbers on every run and platform.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
