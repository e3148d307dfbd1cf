import Foundation

/// What an ``Outbox`` knows of its folder, kept under the outbox's lock: the entries
/// waiting (ids only, oldest first: bodies stay on disk until their turn), those being
/// sent, the dead letters, and the counts its limits judge.
///
/// Sizes are not kept per entry: the byte count grows by what is written and shrinks by
/// what is removed, as the caller measured it, and each scan of the folder sets it anew.
///
/// A class (one per outbox, no value witnesses); the outbox's lock, not the access checker,
/// keeps its fields exclusive. Not `Sendable`: only the outbox touches it, under that lock.
final class OutboxState {
    /// Whether the SDK resumed delivery.
    @exclusivity(unchecked) var resumed = false
    /// Whether the folder was prepared and scanned.
    @exclusivity(unchecked) var loaded = false
    /// Entries waiting, sorted from `head` on (the slots before it are spent).
    @exclusivity(unchecked) private var waiting: [String] = []
    @exclusivity(unchecked) private var head = 0
    /// The entries being sent (a few: at most the width).
    @exclusivity(unchecked) private(set) var inFlight: [String] = []
    /// Dead letters, sorted.
    @exclusivity(unchecked) private var dead: [String] = []
    /// Bytes on disk, entries and dead letters.
    @exclusivity(unchecked) private(set) var bytes = 0
    /// Room taken by sends still writing their file.
    @exclusivity(unchecked) private var reservedEntries = 0, reservedBytes = 0
    /// Entries committed since the current scan began (a scan keeps them).
    @exclusivity(unchecked) private var scanCommits: [String]?
    /// Not before this time does the next attempt start (a backoff, a `Retry-After`).
    @exclusivity(unchecked) var waitUntil: Date?
    /// The wake-up armed on the work queue, and a number that retires older ones.
    @exclusivity(unchecked) var wakeAt: Date?
    @exclusivity(unchecked) var wakeGeneration = 0
    /// The most entries read into memory at once (for tests: it stays at the width).
    @exclusivity(unchecked) private(set) var peakInFlight = 0
    /// The last name stamp handed out (nanoseconds since 1970), so names only grow.
    @exclusivity(unchecked) private var lastStamp: UInt64 = 0

    var pendingCount: Int { waiting.count - head + inFlight.count }
    var entryCount: Int { pendingCount + dead.count }

    /// A new entry name: 20 digits of a time stamp that only grows, a dash, 8 hex digits
    /// of a random number that tells two processes apart. Names sort oldest first.
    func newName() -> String {
        let now = UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000_000))
        lastStamp = max(now, lastStamp + 1)
        var name = [UInt8](repeating: 0x2D, count: 29)  // "-"
        var stamp = lastStamp, tail = UInt32.random(in: 0...UInt32.max)
        for index in 0..<20 {
            name[19 - index] = 0x30 + UInt8(stamp % 10)
            stamp /= 10
        }
        for index in 0..<8 {
            let digit = UInt8(tail & 0xF)
            name[28 - index] = digit < 10 ? 0x30 + digit : 0x57 + digit
            tail >>= 4
        }
        return String(decoding: name, as: UTF8.self)
    }

    // MARK: Room

    /// Whether an entry of `size` bytes fits with what is stored and being written.
    func fits(_ size: Int, maxEntries: Int, maxBytes: Int) -> Bool {
        entryCount + reservedEntries + 1 <= maxEntries && bytes + reservedBytes + size <= maxBytes
    }

    func reserve(_ size: Int) {
        reservedEntries += 1
        reservedBytes += size
    }

    func unreserve(_ size: Int) {
        reservedEntries -= 1
        reservedBytes -= size
    }

    /// The oldest dead letter, else the oldest entry not being sent, forgotten here (its
    /// file is the caller's to measure with ``shrink(_:)`` and remove); `nil` when there is none.
    func dropOldest() -> (id: String, dead: Bool)? {
        if !dead.isEmpty {
            return (dead.removeFirst(), true)
        }
        guard head < waiting.count else { return nil }
        head += 1
        return (waiting[head - 1], false)
    }

    /// Files of `size` bytes left the folder.
    func shrink(_ size: Int) {
        bytes = max(0, bytes - size)
    }

    /// A file grew by `delta` bytes (an entry rewritten).
    func grow(_ delta: Int) {
        bytes += delta
    }

    // MARK: Entries

    /// A send's file is in place: it joins the waiting entries (unless a scan found it first).
    func commit(_ id: String, size: Int) {
        unreserve(size)
        scanCommits?.append(id)
        guard Self.index(of: id, in: waiting, from: head) == nil, !inFlight.contains(id) else { return }
        bytes += size
        insertWaiting(id)
    }

    /// The oldest waiting entry, now being sent.
    func takeNext() -> String? {
        guard head < waiting.count else { return nil }
        let id = waiting[head]
        head += 1
        if head > 1024, head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        inFlight.append(id)
        peakInFlight = max(peakInFlight, inFlight.count)
        return id
    }

    /// A sent entry that waits again (in its place by name).
    func putBack(_ id: String) {
        guard let index = inFlight.firstIndex(of: id) else { return }
        inFlight.remove(at: index)
        insertWaiting(id)
    }

    /// An entry of `size` bytes that left (delivered, dead, gone, set aside): forgotten.
    func forget(_ id: String, size: Int) {
        if let index = inFlight.firstIndex(of: id) {
            inFlight.remove(at: index)
        } else if let index = Self.index(of: id, in: waiting, from: head) {
            waiting.remove(at: index)
        }
        shrink(size)
    }

    private func insertWaiting(_ id: String) {
        let index = Self.position(of: id, in: waiting, from: head)
        if index == head, head > 0 {
            head -= 1
            waiting[head] = id
        } else {
            waiting.insert(id, at: index)
        }
    }

    /// Where `id` belongs in the sorted `names[low...]`.
    static func position(of id: String, in names: [String], from low: Int = 0) -> Int {
        var low = low, high = names.count
        while low < high {
            let middle = (low + high) / 2
            if names[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The index of `id` in the sorted `names[low...]`, or `nil`.
    static func index(of id: String, in names: [String], from low: Int = 0) -> Int? {
        let index = position(of: id, in: names, from: low)
        return index < names.count && names[index] == id ? index : nil
    }

    // MARK: Dead letters

    /// A dead letter of `size` bytes was written.
    func addDead(_ id: String, size: Int) {
        let index = Self.position(of: id, in: dead)
        if index < dead.count, dead[index] == id { return }
        dead.insert(id, at: index)
        bytes += size
    }

    /// A dead letter of `size` bytes was removed.
    func removeDead(_ id: String, size: Int) {
        guard let index = Self.index(of: id, in: dead) else { return }
        dead.remove(at: index)
        shrink(size)
    }

    // MARK: Scans

    /// A scan of the folder begins: sends committed from now on are kept by ``replace(pending:dead:bytes:)``.
    func beginScan() {
        scanCommits = []
    }

    /// The folder as listed: entries and dead letters on disk (oldest first), `bytes` in
    /// all. Entries being sent stay so; sends committed during the listing stay too: they
    /// are returned, for the caller to add their sizes with ``grow(_:)``.
    func replace(pending: [String], dead: [String], bytes: Int) -> [String] {
        var names = pending, missed: [String] = []
        for id in scanCommits ?? [] {
            let at = Self.position(of: id, in: names)
            if at == names.count || names[at] != id {
                names.insert(id, at: at)
                missed.append(id)
            }
        }
        for id in inFlight {
            if let index = Self.index(of: id, in: names) { names.remove(at: index) }
        }
        scanCommits = nil
        waiting = names
        head = 0
        self.dead = dead
        self.bytes = bytes
        return missed
    }
}
