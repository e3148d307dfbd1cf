import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs `count` requests with `width` in flight at a time and returns requests per second.
/// `start` must call its completion on the main queue; this thread blocks meanwhile.
func throughput(count: Int, width: Int, start: @escaping @Sendable (@escaping @Sendable (Bool) -> Void) -> Void) -> Double {
    measure(count: count, width: width, start: start).rate
}

/// The same, also returning the CPU time (user + system, all threads of this process) per
/// request in microseconds: it leaves out time spent waiting for a core, though a busy machine
/// still inflates it (caches, context switches).
func measure(count: Int, width: Int, start: @escaping @Sendable (@escaping @Sendable (Bool) -> Void) -> Void) -> (rate: Double, cpu: Double) {
    let finished = DispatchSemaphore(value: 0)
    let state = Counter(remaining: count)
    let cpuBefore = processCPUSeconds()
    let began = DispatchTime.now().uptimeNanoseconds

    @Sendable func launch() {
        start { ok in
            if !ok { state.failures += 1 }
            state.done += 1
            if state.done == count {
                finished.signal()
            } else if state.takeSlot() {
                launch()
            }
        }
    }
    DispatchQueue.main.async {
        for _ in 0..<min(width, count) where state.takeSlot() {
            launch()
        }
    }
    finished.wait()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
    let cpu = processCPUSeconds() - cpuBefore
    if state.failures > 0 {
        FileHandle.standardError.write(Data("warning: \(state.failures) failed requests\n".utf8))
    }
    return (Double(count) / seconds, cpu / Double(count) * 1e6)
}

/// User plus system CPU seconds of this process so far (every thread).
func processCPUSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    let who = __rusage_who_t(RUSAGE_SELF.rawValue)
    #else
    let who = RUSAGE_SELF
    #endif
    guard getrusage(who, &usage) == 0 else { return 0 }
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Counts of one run; touched only on the main queue.
final class Counter: @unchecked Sendable {
    var remaining: Int
    var done = 0
    var failures = 0

    init(remaining: Int) {
        self.remaining = remaining
    }

    func takeSlot() -> Bool {
        guard remaining > 0 else { return false }
        remaining -= 1
        return true
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count % 2 == 0 ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
}

/// Resident and peak resident memory in KiB, from /proc (Linux) or 0 elsewhere.
func memoryKiB() -> (rss: Int, peak: Int) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    func field(_ name: String) -> Int {
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
    return (field("VmRSS:"), field("VmHWM:"))
}

/// Asks glibc to return freed heap to the system (`malloc_trim`); does nothing elsewhere.
func releaseFreedMemory() {
    #if canImport(Glibc)
    typealias Trim = @convention(c) (Int) -> Int32
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
    #endif
}
