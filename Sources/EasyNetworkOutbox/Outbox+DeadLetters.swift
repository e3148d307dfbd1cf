import Foundation

/// Looking into the folder: the entries waiting, the dead letters (retry or remove them),
/// and the files set aside.
extension Outbox {
    /// Every entry waiting or being sent, oldest first, read from disk (bodies included:
    /// for inspection and support tools, not for a hot path). Damaged files are left out.
    @_alwaysEmitIntoClient  // compiled into the caller: the outbox itself never lists them
    public func pendingEntries() -> [OutboxEntry] {
        entries(dead: false)
    }

    /// Every dead letter, oldest first, read from disk.
    @_alwaysEmitIntoClient
    public func deadLetters() -> [OutboxDeadLetter] {
        entries(dead: true)
    }

    /// Puts a dead letter back among the entries, in its old place (it is old: it goes
    /// first), with its idempotency key, a fresh age and no attempts. Delivery starts when
    /// the outbox is resumed.
    /// - Throws: ``OutboxError/Code/storage`` when it cannot be written back (the dead
    ///   letter is then kept).
    @_optimize(size)
    public func retryDeadLetter(_ letter: OutboxDeadLetter) throws {
        try load()
        // Still a dead letter (not removed, nor retried, meanwhile)?
        let size = self.size(letter.id, in: deadPath)
        guard size > 0 else { return }
        let entry = letter.record.encoded(
            attempts: 0, countedAttempts: 0, notBefore: nil, createdAt: Date(), statusCode: 0, reason: "", responseBody: Data(), endedAt: nil
        )
        try write(entry, id: letter.id, to: pendingPath)
        remove(letter.id, in: deadPath)
        lock.lock()
        removeDead(letter.id, size: size)
        reserve(entry.count)
        commit(letter.id, size: entry.count)
        lock.unlock()
        pumpIfResumed()
    }

    /// Removes a dead letter for good.
    @_alwaysEmitIntoClient
    public func removeDeadLetter(_ letter: OutboxDeadLetter) {
        removeDeadLetter(letter.id)
    }

    /// Removes every dead letter for good.
    @_optimize(size)
    public func removeAllDeadLetters() {
        var bytes = 0
        for id in list(deadPath, bytes: &bytes) {
            removeDeadLetter(id)
        }
    }

    /// The damaged files set aside (see ``OutboxError/Code/corruptFile``), for a support
    /// report; they count against no limit and are never read again.
    /// (Compiled into the caller: the outbox itself never lists them.)
    @_alwaysEmitIntoClient
    public func setAsideFiles() -> [URL] {
        let aside = folder.path + "/aside"  // the outbox's `asidePath`
        let names = (try? FileManager.default.contentsOfDirectory(atPath: aside)) ?? []
        return names.sorted().map { URL(fileURLWithPath: aside + "/" + $0) }
    }

    /// Removes the files set aside.
    @_alwaysEmitIntoClient
    public func removeSetAsideFiles() {
        for file in setAsideFiles() {
            unlink(file.path)
        }
    }

    @usableFromInline @inline(never) @_optimize(size)
    func removeDeadLetter(_ id: String) {
        try? load()
        let size = self.size(id, in: deadPath)
        remove(id, in: deadPath)
        lock.lock()
        removeDead(id, size: size)
        lock.unlock()
    }

    /// The intact dead letters, or entries, oldest first.
    @usableFromInline @_optimize(size)
    func entries(dead: Bool) -> [OutboxEntry] {
        try? load()
        let folder = dead ? deadPath : pendingPath
        var entries: [OutboxEntry] = [], bytes = 0
        for id in list(folder, bytes: &bytes) {
            if let read = try? read(id, in: folder), let record = EntryRecord.decoding(read) {
                entries.append(OutboxEntry(record: record))
            }
        }
        return entries
    }
}
