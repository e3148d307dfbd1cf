import Foundation

/// Looking into the folder: the entries waiting, the dead letters (retry or remove them),
/// and the files set aside.
extension Outbox {
    /// Every entry waiting or being sent, oldest first, read from disk (bodies included:
    /// for inspection and support tools, not for a hot path). Damaged files are left out.
    public func pendingEntries() -> [OutboxEntry] {
        try? load()
        return records(in: .pending).map { OutboxEntry(record: $0) }
    }

    /// Every dead letter, oldest first, read from disk.
    public func deadLetters() -> [OutboxDeadLetter] {
        try? load()
        return records(in: .dead).map { OutboxDeadLetter(record: $0) }
    }

    /// Puts a dead letter back among the entries, in its old place (it is old: it goes
    /// first), with its idempotency key, a fresh age and no attempts. Delivery starts when
    /// the outbox is resumed.
    /// - Throws: ``OutboxError/Code/storage`` when it cannot be written back (the dead
    ///   letter is then kept).
    public func retryDeadLetter(_ letter: OutboxDeadLetter) throws {
        try load()
        let name = letter.id + EntryFolder.suffix
        guard case .record(let letter) = files.read(name, in: .dead) else { return }
        let record = letter.with(attempts: 0, countedAttempts: 0, createdAt: Date())
        let size = try files.write(record, to: .pending)
        files.remove(name, in: .dead)
        lock.lock()
        state.removeDead(record.id)
        state.reserve(size)
        state.commit(record.id, size: size)
        let resumed = state.resumed
        lock.unlock()
        if resumed { work.async { [self] in pump() } }
    }

    /// Removes a dead letter for good.
    public func removeDeadLetter(_ letter: OutboxDeadLetter) {
        try? load()
        files.remove(letter.id + EntryFolder.suffix, in: .dead)
        lock.lock()
        state.removeDead(letter.id)
        lock.unlock()
    }

    /// Removes every dead letter for good.
    public func removeAllDeadLetters() {
        deadLetters().forEach(removeDeadLetter)
    }

    /// The damaged files set aside (see ``OutboxProblem/Kind/corruptFile``), for a support
    /// report; they count against no limit and are never read again.
    public func setAsideFiles() -> [URL] {
        let folder = files.url(.aside)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { folder.appendingPathComponent($0) }
    }

    /// Removes the files set aside.
    public func removeSetAsideFiles() {
        setAsideFiles().forEach { try? FileManager.default.removeItem(at: $0) }
    }

    /// The intact records in `place`, oldest first.
    private func records(in place: EntryFolder.Place) -> [EntryRecord] {
        files.list(place).compactMap { file in
            if case .record(let record) = files.read(file.name, in: place) { return record }
            return nil
        }
    }
}
