import Foundation

/// What an ``Outbox`` knows of its folder, kept under the outbox's lock (its fields are
/// declared with the outbox's, in `Outbox.swift`): the entries on
/// disk (ids only, oldest first: bodies stay on disk until their turn), which of them are
/// being sent, the dead letters, and the counts its limits judge.
///
/// Sizes are not kept per entry: the byte count grows by what is written and shrinks by
/// what is removed, as the caller measured it, and each scan of the folder sets it anew.
///
/// The outbox's lock, not the access checker, keeps these fields exclusive (but
/// `lockDescriptor`'s, used only on the work queue).
extension Outbox {
    @inline(__always) var queuedCount: Int { queued.count }
    @inline(__always) var entryCount: Int { queuedCount + dead.count }

    /// A new entry name: 20 digits of a time stamp that only grows, a dash, 8 hex digits
    /// of a random number that tells two processes apart. Names sort oldest first.
    @inline(never)
    @_optimize(size)
    func newName() -> String {
        let now = UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000_000))
        counts.lastStamp = max(now, counts.lastStamp + 1)
        return String(format: "%020llu-%08x", counts.lastStamp, UInt32(truncatingIfNeeded: Self.random()))
    }

    /// 64 random bits (one generator call, no generic range code).
    @_optimize(size)
    static func random() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }

    // MARK: Room

    /// Whether an entry of `size` bytes fits with what is stored and being written.
    @_optimize(size)
    func fits(_ size: Int, maxEntries: Int, maxBytes: Int) -> Bool {
        entryCount + counts.reservedEntries + 1 <= maxEntries && counts.bytes + counts.reservedBytes + size <= maxBytes
    }

    @inline(__always)
    func reserve(_ size: Int) {
        counts.reservedEntries += 1
        counts.reservedBytes += size
    }

    @inline(__always)
    func unreserve(_ size: Int) {
        counts.reservedEntries -= 1
        counts.reservedBytes -= size
    }

    /// The oldest dead letter, else the oldest entry not being sent, forgotten here (its
    /// file is the caller's to measure with ``shrink(_:)`` and remove); `nil` when there is none.
    @inline(never)
    @_optimize(size)
    func dropOldest() -> (id: String, dead: Bool)? {
        if !dead.isEmpty {
            return (dead.remove(at: 0), true)
        }
        guard let index = firstWaiting() else { return nil }
        return (queued.remove(at: index), false)
    }

    /// Files of `size` bytes left the folder.
    @inline(__always)
    func shrink(_ size: Int) {
        counts.bytes = max(0, counts.bytes - size)
    }

    /// A file grew by `delta` bytes (an entry rewritten).
    @inline(__always)
    func grow(_ delta: Int) {
        counts.bytes += delta
    }

    // MARK: Entries

    /// A send's file is in place: it joins the entries (unless a scan found it first).
    @inline(never)
    @_optimize(size)
    func commit(_ id: String, size: Int) {
        unreserve(size)
        scanCommits?.append(id)
        if Self.insert(id, into: &queued) {
            counts.bytes += size
        }
    }

    /// The oldest entry not being sent, now being sent.
    @inline(never)
    @_optimize(size)
    func takeNext() -> String? {
        guard let index = firstWaiting() else { return nil }
        inFlight.append(queued[index])
        counts.taken += 1
        counts.peakInFlight = max(counts.peakInFlight, inFlight.count)
        return queued[index]
    }

    /// A sent entry that waits again (it kept its place).
    @inline(__always)
    func putBack(_ id: String) {
        if let index = inFlight.firstIndex(of: id) { inFlight.remove(at: index) }
    }

    /// An entry of `size` bytes that left (delivered, dead, gone, set aside): forgotten.
    @inline(never)
    @_optimize(size)
    func forget(_ id: String, size: Int) {
        putBack(id)
        if let index = Self.index(of: id, in: queued) { queued.remove(at: index) }
        shrink(size)
    }

    /// The index of the oldest entry not being sent (the in-flight ones, at most the
    /// width, are skipped).
    @_optimize(size)
    private func firstWaiting() -> Int? {
        var index = 0
        while index < queued.count, inFlight.contains(queued[index]) { index += 1 }
        return index < queued.count ? index : nil
    }

    /// Puts `id` in its place in the sorted `names`; `false` when it is there already.
    @_optimize(size)
    static func insert(_ id: String, into names: inout [String]) -> Bool {
        let index = position(of: id, in: names)
        guard index == names.count || names[index] != id else { return false }
        // Appended, then moved down to its place (usually none to pass: a new name is the
        // newest); no generic insertion compiled for it.
        names.append(id)
        var place = names.count - 1
        while place > index {
            names.swapAt(place, place - 1)
            place -= 1
        }
        return true
    }

    /// Where `id` belongs in the sorted `names`.
    @_optimize(size)
    static func position(of id: String, in names: [String]) -> Int {
        var low = 0, high = names.count
        while low < high {
            let middle = (low + high) / 2
            if names[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The index of `id` in the sorted `names`, or `nil`.
    @_optimize(size)
    static func index(of id: String, in names: [String]) -> Int? {
        let index = position(of: id, in: names)
        return index < names.count && names[index] == id ? index : nil
    }

    // MARK: Dead letters

    /// A dead letter of `size` bytes was written.
    @inline(__always)
    func addDead(_ id: String, size: Int) {
        if Self.insert(id, into: &dead) {
            counts.bytes += size
        }
    }

    /// A dead letter of `size` bytes was removed.
    @inline(never)
    @_optimize(size)
    func removeDead(_ id: String, size: Int) {
        guard let index = Self.index(of: id, in: dead) else { return }
        dead.remove(at: index)
        shrink(size)
    }

    // MARK: Scans

    /// A scan of the folder begins: sends committed from now on are kept by ``replace(pending:dead:bytes:)``.
    @_optimize(size)
    func beginScan() {
        scanCommits = []
    }

    /// The folder as listed: entries and dead letters on disk (oldest first), `bytes` in
    /// all. Entries being sent stay so; sends committed during the listing stay too: they
    /// are returned, for the caller to add their sizes with ``grow(_:)``.
    @inline(never)
    @_optimize(size)
    func replace(pending: [String], dead: [String], bytes: Int) -> [String] {
        var names = pending, missed: [String] = []
        for id in scanCommits ?? [] where Self.insert(id, into: &names) {
            missed.append(id)
        }
        scanCommits = nil
        queued = names
        self.dead = dead
        counts.bytes = bytes
        return missed
    }
}
