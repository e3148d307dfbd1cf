import Foundation

/// What an ``Outbox`` knows of its folder, kept under the outbox's lock: the entries
/// waiting (names only, oldest first: bodies stay on disk until their turn), those being
/// sent, the dead letters, and the counts its limits judge.
struct OutboxState {
    /// Whether the SDK resumed delivery.
    var resumed = false
    /// Whether the folder was prepared and scanned.
    var loaded = false
    /// Entries waiting, sorted by name from `head` on (the slots before it are spent).
    private var waiting: [String] = []
    private var head = 0
    /// The size of every entry on disk, waiting or being sent.
    private var pendingSizes: [String: Int] = [:]
    /// The entries being sent (a few: at most the width).
    private(set) var inFlight: [String] = []
    /// Dead letters, sorted by name, with their sizes.
    private var deadNames: [String] = []
    private var deadSizes: [String: Int] = [:]
    /// Bytes on disk, entries and dead letters.
    private(set) var bytes = 0
    /// Room taken by sends still writing their file.
    private var reservedEntries = 0, reservedBytes = 0
    /// Names committed by sends since the current scan began (a scan must keep them).
    private var committedDuringScan: [String]?
    /// Not before this time does the next attempt start (a backoff, a `Retry-After`).
    var waitUntil: Date?
    /// The wake-up armed on the work queue, and a number that retires older ones.
    var wakeAt: Date?
    var wakeGeneration = 0
    /// The most entries read into memory at once (for tests: it stays at the width).
    private(set) var peakInFlight = 0
    /// The last name stamp handed out (nanoseconds since 1970), so names only grow.
    private var lastStamp: UInt64 = 0

    var pendingCount: Int { pendingSizes.count }
    var deadCount: Int { deadNames.count }
    var entryCount: Int { pendingSizes.count + deadNames.count }

    /// A new entry name: time-ordered, unique (a random tail tells two processes apart).
    mutating func newName() -> String {
        let now = UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000_000))
        lastStamp = max(now, lastStamp + 1)
        var digits = String(lastStamp)
        digits = String(repeating: "0", count: max(0, 20 - digits.count)) + digits
        let tail = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return digits + "-" + String(repeating: "0", count: 8 - tail.count) + tail
    }

    // MARK: Room

    /// Whether an entry of `size` bytes fits with what is stored and being written.
    func fits(_ size: Int, options: OutboxOptions) -> Bool {
        entryCount + reservedEntries + 1 <= options.maxEntries && bytes + reservedBytes + size <= options.maxBytes
    }

    mutating func reserve(_ size: Int) {
        reservedEntries += 1
        reservedBytes += size
    }

    mutating func unreserve(_ size: Int) {
        reservedEntries -= 1
        reservedBytes -= size
    }

    /// The oldest dead letter, else the oldest entry not being sent, forgotten here (its
    /// file is the caller's to remove); `nil` when there is none.
    mutating func dropOldest() -> (name: String, dead: Bool)? {
        if let name = deadNames.first {
            removeDead(name)
            return (name, true)
        }
        guard head < waiting.count else { return nil }
        let name = waiting[head]
        head += 1
        bytes -= pendingSizes.removeValue(forKey: name) ?? 0
        return (name, false)
    }

    // MARK: Entries

    /// A send's file is in place: it joins the waiting entries (unless a scan found it first).
    mutating func commit(_ name: String, size: Int) {
        unreserve(size)
        committedDuringScan?.append(name)
        guard pendingSizes[name] == nil else { return }
        pendingSizes[name] = size
        bytes += size
        insertWaiting(name)
    }

    /// The oldest waiting entry, now being sent.
    mutating func takeNext() -> String? {
        guard head < waiting.count else { return nil }
        let name = waiting[head]
        head += 1
        if head > 1024, head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        inFlight.append(name)
        peakInFlight = max(peakInFlight, inFlight.count)
        return name
    }

    /// A sent entry that waits again (in its place by name).
    mutating func putBack(_ name: String) {
        guard let index = inFlight.firstIndex(of: name) else { return }
        inFlight.remove(at: index)
        insertWaiting(name)
    }

    /// An entry that left (delivered, dead, gone, set aside): forgotten.
    mutating func forget(_ name: String) {
        if let index = inFlight.firstIndex(of: name) { inFlight.remove(at: index) }
        bytes -= pendingSizes.removeValue(forKey: name) ?? 0
        if let index = waitingIndex(name) {
            waiting.remove(at: index)
        }
    }

    /// A rewritten entry's new size.
    mutating func resize(_ name: String, to size: Int) {
        guard let old = pendingSizes[name] else { return }
        pendingSizes[name] = size
        bytes += size - old
    }

    private mutating func insertWaiting(_ name: String) {
        var low = head, high = waiting.count
        while low < high {
            let middle = (low + high) / 2
            if waiting[middle] < name { low = middle + 1 } else { high = middle }
        }
        if low == head, head > 0 {
            head -= 1
            waiting[head] = name
        } else {
            waiting.insert(name, at: low)
        }
    }

    private func waitingIndex(_ name: String) -> Int? {
        var low = head, high = waiting.count
        while low < high {
            let middle = (low + high) / 2
            if waiting[middle] < name { low = middle + 1 } else { high = middle }
        }
        return low < waiting.count && waiting[low] == name ? low : nil
    }

    // MARK: Dead letters

    mutating func addDead(_ name: String, size: Int) {
        if let old = deadSizes.updateValue(size, forKey: name) {
            bytes -= old
        } else {
            var low = 0, high = deadNames.count
            while low < high {
                let middle = (low + high) / 2
                if deadNames[middle] < name { low = middle + 1 } else { high = middle }
            }
            deadNames.insert(name, at: low)
        }
        bytes += size
    }

    mutating func removeDead(_ name: String) {
        guard let size = deadSizes.removeValue(forKey: name) else { return }
        bytes -= size
        if let index = deadNames.firstIndex(of: name) { deadNames.remove(at: index) }
    }

    // MARK: Scans

    /// A scan of the folder begins: sends committed from now on are kept by ``replace(pending:dead:)``.
    mutating func beginScan() {
        committedDuringScan = []
    }

    /// The folder as listed: entries and dead letters on disk (oldest first), with sizes.
    /// Entries being sent stay so; sends committed during the listing stay too.
    mutating func replace(pending: [(name: String, size: Int)], dead: [(name: String, size: Int)]) {
        var sizes: [String: Int] = [:]
        sizes.reserveCapacity(pending.count)
        var names: [String] = []
        names.reserveCapacity(pending.count)
        for file in pending {
            let name = String(file.name.dropLast(EntryFolder.suffix.count))
            sizes[name] = file.size
            if !inFlight.contains(name) { names.append(name) }
        }
        for name in committedDuringScan ?? [] where sizes[name] == nil {
            if let size = pendingSizes[name] {
                sizes[name] = size
                if !inFlight.contains(name) { names.append(name) }
            }
        }
        committedDuringScan = nil
        for name in inFlight where sizes[name] == nil {
            sizes[name] = pendingSizes[name] ?? 0
        }
        waiting = names.sorted()
        head = 0
        pendingSizes = sizes
        deadNames = dead.map { String($0.name.dropLast(EntryFolder.suffix.count)) }
        deadSizes = [:]
        for (index, file) in dead.enumerated() { deadSizes[deadNames[index]] = file.size }
        bytes = sizes.values.reduce(0, +) + dead.reduce(0) { $0 + $1.size }
    }

    /// Whether `name` is a known dead letter.
    func isDead(_ name: String) -> Bool { deadSizes[name] != nil }
}
